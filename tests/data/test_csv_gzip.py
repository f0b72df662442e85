"""tf.data.experimental.make_csv_dataset on compressed files: GZIP files are probed (column names and types)
and read through the decompressor; ZLIB files need column names and defaults, as in TensorFlow."""
import gzip
import zlib

import numpy as np
import pytest

import rivulet as tf

CSV = "date_time,holiday,temp,traffic_volume\n2012-10-02 09:00:00,None,288.28,5545\n" \
      "2012-10-02 10:00:00,None,289.36,4516\n2012-10-02 11:00:00,Columbus Day,289.58,4767\n"


def _rows(ds):
    out = []
    for feats, label in ds:
        out.extend(zip(feats["date_time"].numpy().tolist(), feats["holiday"].numpy().tolist(),
                       feats["temp"].numpy().tolist(), label.numpy().tolist()))
    return out


def test_make_csv_dataset_gzip(tmp_path):
    path = tmp_path / "traffic.csv.gz"
    path.write_bytes(gzip.compress(CSV.encode()))
    ds = tf.data.experimental.make_csv_dataset(str(path), batch_size=2, label_name="traffic_volume",
                                               compression_type="GZIP", num_epochs=1, shuffle=False)
    feats, label = ds.element_spec
    assert list(feats) == ["date_time", "holiday", "temp"]
    assert feats["temp"].dtype == tf.float32 and label.dtype == tf.int32 and feats["holiday"].dtype == tf.string
    rows = _rows(ds)
    assert [r[3] for r in rows] == [5545, 4516, 4767]
    assert rows[2][1] == b"Columbus Day"
    np.testing.assert_allclose([r[2] for r in rows], [288.28, 289.36, 289.58], rtol=1e-6)


def test_make_csv_dataset_zlib_needs_names_and_defaults(tmp_path):
    path = tmp_path / "traffic.csv.z"
    path.write_bytes(zlib.compress(CSV.encode()))
    with pytest.raises(ValueError, match=r"compression_type \(ZLIB\) is not supported for probing columns"):
        tf.data.experimental.make_csv_dataset(str(path), batch_size=2, compression_type="ZLIB")
    with pytest.raises(ValueError, match=r"compression_type \(BZIP2\) is not supported"):
        tf.data.experimental.make_csv_dataset(str(path), batch_size=2, compression_type="BZIP2")
    ds = tf.data.experimental.make_csv_dataset(
        str(path), batch_size=3, label_name="traffic_volume", compression_type="ZLIB", num_epochs=1,
        shuffle=False, column_names=["date_time", "holiday", "temp", "traffic_volume"],
        column_defaults=["", "", 0.0, 0])
    assert [r[3] for r in _rows(ds)] == [5545, 4516, 4767]


def test_make_csv_dataset_plain_file_still_probed(tmp_path):
    path = tmp_path / "traffic.csv"
    path.write_text(CSV)
    ds = tf.data.experimental.make_csv_dataset(str(path), batch_size=3, label_name="traffic_volume",
                                               num_epochs=1, shuffle=False)
    assert [r[3] for r in _rows(ds)] == [5545, 4516, 4767]
