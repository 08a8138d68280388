"""Write the small classification data set the PyTorch example trains on (data/train.csv).

Each row is 8 features and a class (0, 1 or 2) given by a fixed random linear
rule, so a small MLP learns it in a few epochs. The file is shipped with the
repository; this script is how it was made (`python make_data.py`).
"""
import argparse
import os

import numpy as np

FEATURES = 8
CLASSES = 3


def make_dataset(rows: int = 256, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(rows, FEATURES)).astype(np.float32)
    teacher = rng.normal(size=(FEATURES, CLASSES))
    y = np.argmax(x @ teacher, axis=1)
    return x, y


def write_csv(path: str, rows: int = 256, seed: int = 0) -> None:
    x, y = make_dataset(rows, seed)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        for features, label in zip(x, y):
            f.write(",".join(f"{v:.6f}" for v in features) + f",{label}\n")


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "data", "train.csv"))
    p.add_argument("--rows", type=int, default=256)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    write_csv(a.out, a.rows, a.seed)
