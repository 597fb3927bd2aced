from protocol.logs import configure

# Library code logs through structlog; keep test output to warnings and errors.
configure("warning")
