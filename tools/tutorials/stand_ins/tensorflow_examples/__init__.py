"""A stand-in for `tensorflow_examples` (github.com/tensorflow/examples), for the tutorial runner only: the
`models.pix2pix.pix2pix` module that images/segmentation and generative/cyclegan import, written for rivulet
from the architecture the pix2pix paper (Isola et al., 2017) and those tutorials describe."""
