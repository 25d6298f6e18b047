"""The controller, configuration, the journal and the command line."""
