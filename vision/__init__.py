"""One frame -> Detections: ball centres in table millimetres with identity and confidence."""
