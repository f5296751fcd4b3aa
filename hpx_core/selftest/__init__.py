"""The selftest: loops of known length that check a board setup end to end."""
