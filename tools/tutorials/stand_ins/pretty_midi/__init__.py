"""A stand-in for `pretty_midi`, for the tutorial runner only (never shipped with rivulet).

audio/music_generation reads and writes Standard MIDI Files with pretty_midi and renders them with
FluidSynth. This reads and writes the format itself (the MIDI 1.0 file spec: MThd/MTrk chunks, variable-length
delta times, running status, meta events, the tempo map turning ticks into seconds) and renders with a bank of
decaying sine tones instead of FluidSynth's sound fonts. What it serves: `PrettyMIDI(midi_file=None,
resolution=220, initial_tempo=120.0)` with `instruments`, `write`, `get_end_time`, `fluidsynth(fs)` and
`synthesize(fs)`; `Instrument(program, is_drum=False, name='')` (`notes`, `control_changes`); `Note(velocity,
pitch, start, end)`; `program_to_instrument_name`, `instrument_name_to_program`, `note_number_to_name`,
`note_name_to_number`. Notes are grouped into instruments by (track, channel, program) as pretty_midi does.
"""
import struct

import numpy as np

__version__ = "0.2.10"

INSTRUMENT_MAP = [
    "Acoustic Grand Piano", "Bright Acoustic Piano", "Electric Grand Piano", "Honky-tonk Piano",
    "Electric Piano 1", "Electric Piano 2", "Harpsichord", "Clavinet", "Celesta", "Glockenspiel", "Music Box",
    "Vibraphone", "Marimba", "Xylophone", "Tubular Bells", "Dulcimer", "Drawbar Organ", "Percussive Organ",
    "Rock Organ", "Church Organ", "Reed Organ", "Accordion", "Harmonica", "Tango Accordion",
    "Acoustic Guitar (nylon)", "Acoustic Guitar (steel)", "Electric Guitar (jazz)", "Electric Guitar (clean)",
    "Electric Guitar (muted)", "Overdriven Guitar", "Distortion Guitar", "Guitar Harmonics", "Acoustic Bass",
    "Electric Bass (finger)", "Electric Bass (pick)", "Fretless Bass", "Slap Bass 1", "Slap Bass 2",
    "Synth Bass 1", "Synth Bass 2", "Violin", "Viola", "Cello", "Contrabass", "Tremolo Strings",
    "Pizzicato Strings", "Orchestral Harp", "Timpani", "String Ensemble 1", "String Ensemble 2",
    "Synth Strings 1", "Synth Strings 2", "Choir Aahs", "Voice Oohs", "Synth Choir", "Orchestra Hit", "Trumpet",
    "Trombone", "Tuba", "Muted Trumpet", "French Horn", "Brass Section", "Synth Brass 1", "Synth Brass 2",
    "Soprano Sax", "Alto Sax", "Tenor Sax", "Baritone Sax", "Oboe", "English Horn", "Bassoon", "Clarinet",
    "Piccolo", "Flute", "Recorder", "Pan Flute", "Blown bottle", "Shakuhachi", "Whistle", "Ocarina",
    "Lead 1 (square)", "Lead 2 (sawtooth)", "Lead 3 (calliope)", "Lead 4 chiff", "Lead 5 (charang)",
    "Lead 6 (voice)", "Lead 7 (fifths)", "Lead 8 (bass + lead)", "Pad 1 (new age)", "Pad 2 (warm)",
    "Pad 3 (polysynth)", "Pad 4 (choir)", "Pad 5 (bowed)", "Pad 6 (metallic)", "Pad 7 (halo)", "Pad 8 (sweep)",
    "FX 1 (rain)", "FX 2 (soundtrack)", "FX 3 (crystal)", "FX 4 (atmosphere)", "FX 5 (brightness)",
    "FX 6 (goblins)", "FX 7 (echoes)", "FX 8 (sci-fi)", "Sitar", "Banjo", "Shamisen", "Koto", "Kalimba",
    "Bag pipe", "Fiddle", "Shanai", "Tinkle Bell", "Agogo", "Steel Drums", "Woodblock", "Taiko Drum",
    "Melodic Tom", "Synth Drum", "Reverse Cymbal", "Guitar Fret Noise", "Breath Noise", "Seashore",
    "Bird Tweet", "Telephone Ring", "Helicopter", "Applause", "Gunshot"]
_NAMES = ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"]


def program_to_instrument_name(program_number):
    if not 0 <= program_number < 128:
        raise ValueError(f"Invalid program number {program_number}, should be between 0 and 127")
    return INSTRUMENT_MAP[program_number]


def instrument_name_to_program(instrument_name):
    normalized = instrument_name.lower().strip()
    for i, name in enumerate(INSTRUMENT_MAP):
        if name.lower() == normalized:
            return i
    raise ValueError(f"{instrument_name} is not a valid General MIDI instrument name.")


def note_number_to_name(note_number):
    n = int(np.round(note_number))
    return f"{_NAMES[n % 12]}{n // 12 - 1}"


def note_name_to_number(note_name):
    name = note_name.strip()
    i = 2 if len(name) > 1 and name[1] in "#b" else 1
    pitch, octave = name[:i], int(name[i:])
    base = _NAMES.index(pitch[0].upper()) + (1 if pitch[1:] == "#" else -1 if pitch[1:] == "b" else 0)
    return base + 12 * (octave + 1)


class Note:
    def __init__(self, velocity, pitch, start, end):
        self.velocity, self.pitch, self.start, self.end = velocity, pitch, start, end

    def get_duration(self):
        return self.end - self.start

    @property
    def duration(self):
        return self.end - self.start

    def __repr__(self):
        return f"Note(start={self.start:f}, end={self.end:f}, pitch={self.pitch}, velocity={self.velocity})"


class ControlChange:
    def __init__(self, number, value, time):
        self.number, self.value, self.time = number, value, time

    def __repr__(self):
        return f"ControlChange(number={self.number}, value={self.value}, time={self.time:f})"


class Instrument:
    def __init__(self, program, is_drum=False, name=""):
        self.program, self.is_drum, self.name = program, is_drum, name
        self.notes, self.control_changes, self.pitch_bends = [], [], []

    def get_end_time(self):
        return max([n.end for n in self.notes] + [c.time for c in self.control_changes] + [0.0])

    def synthesize(self, fs=44100):
        """Decaying sine tones at each note's frequency (the drums are silent)."""
        end = self.get_end_time()
        out = np.zeros(int(fs * end) + 1)
        if self.is_drum:
            return out
        for note in self.notes:
            a, b = int(note.start * fs), int(note.end * fs)
            if b <= a:
                continue
            t = np.arange(b - a) / fs
            f = 440.0 * 2.0 ** ((note.pitch - 69) / 12.0)
            out[a:b] += note.velocity / 127.0 * np.sin(2 * np.pi * f * t) * np.exp(-3.0 * t)
        return out

    def __repr__(self):
        return f"Instrument(program={self.program}, is_drum={self.is_drum}, name=\"{self.name}\")"


def _varlen(data, i):
    value = 0
    while True:
        byte = data[i]
        i += 1
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value, i


def _write_varlen(value):
    out = [value & 0x7F]
    value >>= 7
    while value:
        out.append(0x80 | (value & 0x7F))
        value >>= 7
    return bytes(reversed(out))


class PrettyMIDI:
    def __init__(self, midi_file=None, resolution=220, initial_tempo=120.0):
        self.resolution = resolution
        self.instruments = []
        self._tempi = [(0, 60000000.0 / initial_tempo)]  # (tick, microseconds per beat)
        if midi_file is not None:
            with open(midi_file, "rb") as f:
                self._read(f.read(), str(midi_file))

    # -- reading -------------------------------------------------------------------------------------------
    def _read(self, data, where):
        if data[:4] != b"MThd":
            raise ValueError(f"{where}: not a Standard MIDI File (no MThd header)")
        length, fmt, ntracks, division = struct.unpack(">IHHH", data[4:14])
        if division & 0x8000:
            raise ValueError(f"{where}: SMPTE time division is not supported")
        self.resolution = division
        i = 8 + length
        tracks = []
        for _ in range(ntracks):
            if data[i:i + 4] != b"MTrk":
                raise ValueError(f"{where}: expected an MTrk chunk at byte {i}")
            (size,) = struct.unpack(">I", data[i + 4:i + 8])
            tracks.append(self._events(data[i + 8:i + 8 + size]))
            i += 8 + size
        tempi = sorted((tick, value) for events in tracks for tick, kind, value in events if kind == "tempo")
        self._tempi = [(0, 500000.0)] + tempi if not tempi or tempi[0][0] != 0 else tempi
        to_seconds = self._tick_to_seconds()
        instruments = {}
        for t, events in enumerate(tracks):
            program = [0] * 16
            playing = {}
            for tick, kind, value in events:
                if kind == "program":
                    program[value[0]] = value[1]
                    continue
                if kind not in ("on", "off", "cc"):
                    continue
                channel = value[0]
                key = (t, channel, program[channel])
                if key not in instruments:
                    instruments[key] = Instrument(program[channel], is_drum=channel == 9)
                inst = instruments[key]
                if kind == "cc":
                    inst.control_changes.append(ControlChange(value[1], value[2], to_seconds(tick)))
                elif kind == "on":
                    playing.setdefault((channel, value[1]), []).append((tick, value[2], key))
                else:
                    starts = playing.get((channel, value[1]))
                    if starts:
                        start, velocity, k = starts.pop(0)
                        if tick > start:
                            instruments[k].notes.append(Note(velocity, value[1], to_seconds(start), to_seconds(tick)))
        self.instruments = [inst for inst in instruments.values() if inst.notes or inst.control_changes]

    @staticmethod
    def _events(track):
        events, tick, i, status = [], 0, 0, None
        while i < len(track):
            delta, i = _varlen(track, i)
            tick += delta
            byte = track[i]
            if byte == 0xFF:  # meta
                kind, (length, j) = track[i + 1], _varlen(track, i + 2)
                if kind == 0x51:
                    events.append((tick, "tempo", float(int.from_bytes(track[j:j + 3], "big"))))
                i = j + length
                if kind == 0x2F:
                    break
                continue
            if byte in (0xF0, 0xF7):  # sysex
                length, j = _varlen(track, i + 1)
                i = j + length
                continue
            if byte & 0x80:
                status = byte
                i += 1
            elif status is None:
                raise ValueError("MIDI data byte without a status byte")
            kind, channel = status & 0xF0, status & 0x0F
            size = 1 if kind in (0xC0, 0xD0) else 2
            args = track[i:i + size]
            i += size
            if kind == 0x90 and args[1] > 0:
                events.append((tick, "on", (channel, args[0], args[1])))
            elif kind in (0x80, 0x90):
                events.append((tick, "off", (channel, args[0])))
            elif kind == 0xB0:
                events.append((tick, "cc", (channel, args[0], args[1])))
            elif kind == 0xC0:
                events.append((tick, "program", (channel, args[0])))
        return events

    def _tick_to_seconds(self):
        marks, seconds = [], 0.0
        for n, (tick, tempo) in enumerate(self._tempi):
            if n:
                prev_tick, prev_tempo = self._tempi[n - 1]
                seconds += (tick - prev_tick) * prev_tempo / 1e6 / self.resolution
            marks.append((tick, seconds, tempo))

        def convert(tick):
            k = max(j for j, m in enumerate(marks) if m[0] <= tick)
            t0, s0, tempo = marks[k]
            return s0 + (tick - t0) * tempo / 1e6 / self.resolution
        return convert

    # -- writing -------------------------------------------------------------------------------------------
    def write(self, filename):
        """A format-1 file: a tempo track, then one track per instrument (channels 0-15, 9 for drums)."""
        tempo = int(self._tempi[0][1])
        seconds_per_tick = tempo / 1e6 / self.resolution

        def track(events):
            events.sort(key=lambda e: (e[0], e[1]))
            out, last = b"", 0
            for tick, _, payload in events:
                out += _write_varlen(tick - last) + payload
                last = tick
            out += b"\x00\xff\x2f\x00"
            return b"MTrk" + struct.pack(">I", len(out)) + out

        chunks = [track([(0, 0, b"\xff\x51\x03" + tempo.to_bytes(3, "big"))])]
        free = [c for c in range(16) if c != 9]
        for inst in self.instruments:
            channel = 9 if inst.is_drum else free[len(chunks) % len(free)]
            events = [(0, 0, bytes([0xC0 | channel, inst.program]))]
            for note in inst.notes:
                on = int(round(note.start / seconds_per_tick))
                off = max(int(round(note.end / seconds_per_tick)), on)
                events.append((on, 2, bytes([0x90 | channel, note.pitch, note.velocity])))
                events.append((off, 1, bytes([0x80 | channel, note.pitch, 0])))
            for cc in inst.control_changes:
                events.append((int(round(cc.time / seconds_per_tick)), 0, bytes([0xB0 | channel, cc.number,
                                                                                   cc.value])))
            chunks.append(track(events))
        header = b"MThd" + struct.pack(">IHHH", 6, 1, len(chunks), self.resolution)
        data = header + b"".join(chunks)
        if hasattr(filename, "write"):
            filename.write(data)
        else:
            with open(filename, "wb") as f:
                f.write(data)

    # -- queries and rendering -----------------------------------------------------------------------------
    def get_end_time(self):
        return max([i.get_end_time() for i in self.instruments] + [0.0])

    def synthesize(self, fs=44100, wave=np.sin):
        waves = [i.synthesize(fs) for i in self.instruments]
        if not waves:
            return np.zeros(0)
        out = np.zeros(max(len(w) for w in waves))
        for w in waves:
            out[:len(w)] += w
        peak = np.abs(out).max()
        return out / peak if peak else out

    def fluidsynth(self, fs=44100, sf2_path=None):
        """(FluidSynth renders with a sound font; here the sine bank of `synthesize`.)"""
        return self.synthesize(fs)
