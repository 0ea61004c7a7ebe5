"""Detections and pocket signals -> tracks -> shot events -> Shot records."""
