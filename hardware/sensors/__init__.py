"""Pocket sensors: the serial line protocol, the reader thread and device-clock mapping."""
