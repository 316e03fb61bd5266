"""Vision: read the physical board from camera frames (OpenCV), and the synthetic camera that renders boards."""
