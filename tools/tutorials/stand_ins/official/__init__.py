"""A stand-in for tf-models-official (`official`), for the tutorial runner only (never shipped with rivulet):
the two layers understanding/sngp imports from `official.nlp.modeling.layers` (SpectralNormalization and
RandomFeatureGaussianProcess, with `gaussian_process.mean_field_logits`), written for rivulet's Keras from
the SNGP paper (Liu et al., 2020, "Simple and Principled Uncertainty Estimation with Deterministic Deep
Learning via Distance Awareness") and the layers' documented arguments."""
