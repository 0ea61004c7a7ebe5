"""The virtual table: physics, an overhead-camera renderer, simulated pocket sensors, truth."""
