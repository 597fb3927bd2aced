"""Programs this project did not write, built and trained here as opponents: each a
recipe of build steps (``recipe``) that ends in a runnable ``<program> <host> <port>``
for our dealer and the ACPC reference dealer (``pokerbot opponent build``)."""
