"""Make a labelled data set for the MLPerf Tiny KWS model from synthetic speech.

The twelve classes of the model (MLPerf Tiny's keyword-spotting benchmark, in its order): the
ten keywords spoken by espeak-ng (a Debian package: apt-get install espeak-ng) in several
voices and speeds, "silence" (quiet noise) and "unknown" (other words). Each clip becomes the
model's 49x10 MFCC features as MLPerf Tiny's KWS preprocessing computes them
(benchmark/training/keyword_spotting/get_dataset.py in mlcommons/tiny): 16 kHz, 1 s, the wave
scaled to its peak, a 30 ms Hann window every 20 ms (512-point FFT), 40 mel bands from 20 Hz to
4 kHz (TensorFlow's linear_to_mel_weight_matrix), log(mel + 1e-6), and the first 10
coefficients of TensorFlow's MFCC (a DCT-II scaled by 1/sqrt(2 x 40)). NumPy only.

    python examples/datasets/kws/make_kws_dataset.py OUT.npz [--per-keyword 16]

writes ``features`` (float32, N x 49 x 10 x 1: hpx quantizes them with the model's own input
parameters) and ``labels`` (int64, N) in one .npz, and prints the classes' counts. Nothing is
downloaded; the same espeak-ng gives the same file.
"""

from __future__ import annotations

import argparse
import io
import subprocess
import wave
from pathlib import Path

import numpy as np

CLASSES = ("down", "go", "left", "no", "off", "on", "right", "stop", "up", "yes",
           "_silence_", "_unknown_")
UNKNOWN_WORDS = ("bed", "bird", "cat", "dog", "happy", "house", "marvin", "sheila", "tree",
                 "wow", "four", "seven", "nine", "zero", "forward", "learn", "follow", "visual",
                 "backward", "two")
VOICES = ("en-us", "en-gb", "en-gb-scotland", "en-029", "en-gb-x-rp", "en-gb-x-gbclan",
          "en-us+f3", "en-gb+f4")
SPEEDS = (130, 175)
RATE = 16_000
FRAME, STEP, FFT, MELS, COEFFICIENTS = 480, 320, 512, 40, 10


def speak(word: str, voice: str, speed: int) -> np.ndarray:
    """espeak-ng's wave of ``word`` at 16 kHz, as floats."""
    wav = subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "--stdout", word],
                         check=True, capture_output=True).stdout
    with wave.open(io.BytesIO(wav)) as reader:
        rate = reader.getframerate()
        samples = np.frombuffer(reader.readframes(reader.getnframes()), dtype="<i2")
    return resample(samples.astype(np.float64) / 32768.0, rate, RATE)


def resample(signal: np.ndarray, rate: int, target: int) -> np.ndarray:
    """Band-limited resampling through the FFT (what scipy.signal.resample does)."""
    length = round(len(signal) * target / rate)
    spectrum = np.fft.rfft(signal)
    kept = np.zeros(length // 2 + 1, dtype=complex)
    n = min(len(kept), len(spectrum))
    kept[:n] = spectrum[:n]
    return np.fft.irfft(kept, length) * (length / len(signal))


def one_second(signal: np.ndarray) -> np.ndarray:
    """The clip centred in one second (cut at the centre when longer)."""
    if len(signal) >= RATE:
        start = (len(signal) - RATE) // 2
        return signal[start:start + RATE]
    out = np.zeros(RATE)
    start = (RATE - len(signal)) // 2
    out[start:start + len(signal)] = signal
    return out


def hertz_to_mel(hertz: np.ndarray) -> np.ndarray:
    return 1127.0 * np.log1p(hertz / 700.0)


def mel_matrix(bins: int) -> np.ndarray:
    """TensorFlow's linear_to_mel_weight_matrix(40, bins, 16000, 20, 4000)."""
    linear = hertz_to_mel(np.linspace(0.0, RATE / 2, bins)[1:])[:, None]
    edges = np.linspace(hertz_to_mel(np.array(20.0)), hertz_to_mel(np.array(4000.0)), MELS + 2)
    lower, center, upper = edges[:-2], edges[1:-1], edges[2:]
    rising = (linear - lower) / (center - lower)
    falling = (upper - linear) / (upper - center)
    weights = np.maximum(0.0, np.minimum(rising, falling))
    return np.vstack([np.zeros((1, MELS)), weights])


def mfcc(signal: np.ndarray) -> np.ndarray:
    """The model's 49 x 10 features of a one-second clip."""
    peak = np.max(np.abs(signal))
    signal = signal / peak if peak > 0 else signal
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(FRAME) / FRAME)  # periodic Hann
    frames = np.stack([signal[i:i + FRAME] * window
                       for i in range(0, len(signal) - FRAME + 1, STEP)])
    spectrum = np.abs(np.fft.rfft(frames, FFT))
    log_mel = np.log(spectrum @ mel_matrix(spectrum.shape[1]) + 1e-6)
    n = np.arange(MELS)
    dct = np.cos(np.pi / MELS * (n[None, :] + 0.5) * np.arange(COEFFICIENTS)[:, None])
    features: np.ndarray = (2.0 * log_mel @ dct.T) / np.sqrt(2.0 * MELS)
    return features


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--per-keyword", type=int, default=len(VOICES) * len(SPEEDS))
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    variants = [(v, s) for v in VOICES for s in SPEEDS][:args.per_keyword]
    features, labels = [], []
    for label, word in enumerate(CLASSES[:10]):
        for voice, speed in variants:
            features.append(mfcc(one_second(speak(word, voice, speed))))
            labels.append(label)
    for k in range(len(variants) + 4):  # silence: faint noise, as Speech Commands' silence
        features.append(mfcc(rng.normal(0.0, 1e-3 * (k + 1), RATE)))
        labels.append(CLASSES.index("_silence_"))
    for k in range(len(variants) + 4):  # unknown: other words, as many as silence
        word, (voice, speed) = UNKNOWN_WORDS[k % len(UNKNOWN_WORDS)], variants[k % len(variants)]
        features.append(mfcc(one_second(speak(word, voice, speed))))
        labels.append(CLASSES.index("_unknown_"))
    data = np.asarray(features, dtype=np.float32)[..., None]
    np.savez_compressed(args.out, features=data, labels=np.asarray(labels, dtype=np.int64))
    counts = np.bincount(labels, minlength=len(CLASSES))
    print(f"{args.out}: {len(labels)} samples, shape {data.shape[1:]}; " + ", ".join(
        f"{c} {n}" for c, n in zip(CLASSES, counts, strict=True)))


if __name__ == "__main__":
    main()
