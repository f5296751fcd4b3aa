"""hpx engine plugin ``tinyseq``: a sequence of int8 dense, ReLU and clamp layers read from a
small text format of its own, with two C implementations of the dense kernel."""
