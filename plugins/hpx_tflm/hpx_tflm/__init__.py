"""hpx engine plugin for upstream TensorFlow Lite Micro."""
