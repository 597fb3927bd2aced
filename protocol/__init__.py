"""The rules and the wire: ACPC game definitions, cards, hand ranking, the betting state
machine and the MATCHSTATE/STATE line formats. Imports nothing from the other layers."""
