"""The edges: cameras, pocket-sensor serial link and firmware, displays, the virtual table."""
