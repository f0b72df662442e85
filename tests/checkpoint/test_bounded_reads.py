"""The checkpoint reader reads only regular files and no more than the format can need: special files, keys
that decompress to gigabytes, fields of the wrong wire type and shapes NumPy cannot hold fail fast with
DataLossError (or read as protobuf would), never with an internal error, a hang or a blow-up."""
import os
import struct

import numpy as np
import pytest

import rivulet as tf
from rivulet.checkpoint import BundleReader, bundle
from rivulet.formats import sstable as table
from rivulet.errors import DataLossError
from tests.deadline import deadline


def _write(tmp_path):
    return tf.train.Checkpoint(v=tf.Variable(1.0)).write(str(tmp_path / "c"))


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_index_linked_to_dev_zero(tmp_path):
    prefix = _write(tmp_path)
    os.remove(prefix + ".index")
    os.symlink("/dev/zero", prefix + ".index")
    with deadline(5), pytest.raises(DataLossError, match=r"c\.index is not a regular file"):
        tf.train.list_variables(prefix)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("victim", [".index", ".data-00000-of-00001"])
def test_a_fifo_does_not_block(tmp_path, victim):
    prefix = _write(tmp_path)
    os.remove(prefix + victim)
    os.mkfifo(prefix + victim)  # opening it for reading would wait for a writer forever
    with deadline(5), pytest.raises(DataLossError, match="not a regular file"):
        tf.train.load_checkpoint(prefix).get_tensor("v/.ATTRIBUTES/VARIABLE_VALUE")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_the_state_file_is_read_only_if_regular(tmp_path):
    os.mkfifo(tmp_path / "checkpoint")
    with deadline(5), pytest.raises(ValueError, match="checkpoint is not a regular file"):
        tf.train.latest_checkpoint(str(tmp_path))
    os.remove(tmp_path / "checkpoint")
    (tmp_path / "checkpoint").write_bytes(b'model_checkpoint_path: "\xff"\n')
    with pytest.raises(ValueError, match="not UTF-8"):
        tf.train.latest_checkpoint(str(tmp_path))


def test_a_directory_as_the_data_file(tmp_path):
    prefix = _write(tmp_path)
    os.remove(prefix + ".data-00000-of-00001")
    os.mkdir(prefix + ".data-00000-of-00001")
    with pytest.raises(DataLossError, match="not a regular file"):
        tf.train.load_checkpoint(prefix).get_tensor("v/.ATTRIBUTES/VARIABLE_VALUE")


def _one_block_table(items):
    """A table whose one data block stores every key against the previous one (no restart points after the
    first): prefix compression at its most extreme."""
    saved = table._RESTART_INTERVAL, table._BLOCK_SIZE
    table._RESTART_INTERVAL, table._BLOCK_SIZE = 1 << 30, 1 << 30
    try:
        return table.write_table(items)
    finally:
        table._RESTART_INTERVAL, table._BLOCK_SIZE = saved


def test_keys_that_decompress_to_gigabytes(tmp_path):
    # 4000 keys sharing a 256 KiB prefix: a 300 KiB file that spells out 1 GiB of keys
    prefix = b"k" * (256 << 10)
    raw = _one_block_table([(b"", b"")] + [(prefix + i.to_bytes(4, "big"), b"") for i in range(4000)])
    assert len(raw) < 400 << 10
    with deadline(10), pytest.raises(DataLossError, match="implausible size"):
        table.read_table(raw, "x.index")


def test_the_keys_of_a_real_table_fit_the_budget():
    items = [(f"model/layer_with_weights-{i}/kernel/.ATTRIBUTES/VARIABLE_VALUE".encode(), bytes(30))
             for i in range(10000)]
    items.sort()
    assert table.read_table(_one_block_table(items)) == items


def _entry(shape_field, dtype=1, size=4):
    return bundle.varint_field(1, dtype) + shape_field + bundle.varint_field(5, size)


def _bundle(tmp_path, entry, data=b"\0\0\x80\x3f", header=None):
    header = header or bundle.varint_field(1, 1) + bundle.bytes_field(3, bundle.varint_field(1, 1))
    (tmp_path / "x.index").write_bytes(table.write_table([(b"", header), (b"v", entry)]))
    (tmp_path / "x.data-00000-of-00001").write_bytes(data)
    return str(tmp_path / "x")


def test_a_field_of_the_wrong_wire_type_is_skipped_as_protobuf_does(tmp_path):
    # the shape (a message) sent as a varint: was read as bytes(2**62); protobuf skips it (a scalar)
    prefix = _bundle(tmp_path, _entry(bundle.varint_field(2, 1 << 62)))
    assert BundleReader(prefix).get_tensor("v") == np.float32(1.0)
    # the header's version (a message) as a varint
    header = bundle.varint_field(1, 1) + bundle.varint_field(3, 1 << 62)
    prefix = _bundle(tmp_path, _entry(b""), header=header)
    assert BundleReader(prefix).get_tensor("v") == np.float32(1.0)
    # the dtype (a varint) sent as bytes: unknown field, so dtype 0 (invalid), which is refused when read
    prefix = _bundle(tmp_path, bundle.bytes_field(1, b"\x01") + bundle.varint_field(5, 4))
    with pytest.raises(tf.errors.UnimplementedError):
        BundleReader(prefix).get_tensor("v")


def test_a_shape_numpy_cannot_hold_is_data_loss(tmp_path):
    dims = b"".join(bundle.bytes_field(2, bundle.varint_field(1, d) if d else b"") for d in (0, 1 << 62))
    prefix = _bundle(tmp_path, _entry(bundle.bytes_field(2, dims), size=0), data=b"")
    with pytest.raises(DataLossError, match="implausible shape"):
        BundleReader(prefix).get_tensor("v")


def test_bool_bytes_other_than_0_and_1_read_as_true(tmp_path):
    shape = bundle.bytes_field(2, bundle.bytes_field(2, bundle.varint_field(1, 3)))
    prefix = _bundle(tmp_path, _entry(shape, dtype=10, size=3), data=b"\x01\x00\x07")  # no checksum, as TF 1.x
    got = BundleReader(prefix).get_tensor("v")
    assert got.tolist() == [True, False, True] and got.view(np.uint8).tolist() == [1, 0, 1]


def test_a_bad_entry_names_the_checkpoint_and_the_tensor(tmp_path):
    prefix = _bundle(tmp_path, b"\x12\x09\x0a")  # the shape field claims 9 bytes; 1 follows
    with pytest.raises(DataLossError, match=r"x' is corrupted: the entry of tensor 'v': truncated protobuf"):
        BundleReader(prefix)
    prefix = _bundle(tmp_path, _entry(bundle.bytes_field(2, b"\x12\x05")))
    with pytest.raises(DataLossError, match=r"x' is corrupted: the shape of tensor 'v': truncated protobuf"):
        BundleReader(prefix)


def test_string_lengths_of_every_width(tmp_path):
    """The lengths are decoded together (vectorised): one to three-byte varints, empty strings, and a length
    longer than ten bytes or than the data."""
    values = np.array([b"", b"a", b"b" * 127, b"c" * 128, b"d" * 300, b"e" * 20000, b""], dtype=object).reshape(7, 1)
    bundle.write_bundle(str(tmp_path / "s"), {"s": values})
    assert BundleReader(str(tmp_path / "s")).get_tensor("s").tolist() == values.tolist()
    from rivulet.formats import crc32c
    for lengths, what in ((b"\xff" * 11 + b"\x01", "corrupted length"), (b"\xff\xff\xff\xff\x0f", "wrong size")):
        check = struct.pack("<I", crc32c.mask(crc32c.value(struct.pack("<I", 2 ** 32 - 1))))
        prefix = _bundle(tmp_path, _entry(bundle.bytes_field(2, bundle.bytes_field(2, bundle.varint_field(1, 1))),
                                          dtype=7, size=len(lengths) + 4), data=lengths + check)
        with pytest.raises(DataLossError, match=f"string tensor 'v' has a {what}|string tensor 'v' has the {what}"):
            BundleReader(prefix).get_tensor("v")


def test_the_shared_prefix_of_two_keys():
    from rivulet.formats.sstable import _common_prefix
    for a, b, n in ((b"", b"", 0), (b"abc", b"abd", 2), (b"ab", b"abc", 2), (b"x", b"y", 0),
                    (b"k" * 1000 + b"\0", b"k" * 1000 + b"\1", 1000), (b"same", b"same", 4)):
        assert _common_prefix(a, b) == n == _common_prefix(b, a)
