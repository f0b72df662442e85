"""A stand-in for pyfluidsynth, for the tutorial runner only (never shipped with rivulet): audio/music_generation
imports it for pretty_midi's `fluidsynth()`, which the pretty_midi stand-in renders with sine tones instead."""
__version__ = "1.3.4"
