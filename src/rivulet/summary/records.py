"""TFRecord framing now lives in formats/records.py; this name stays for scripts that import it from here."""
from ..formats.records import masked_crc, record  # noqa: F401
