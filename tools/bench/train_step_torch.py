#!/usr/bin/python3
"""PyTorch reference for tools/bench/train_step_bench.cpp: time per training step (zero_grad,
forward, softmax cross-entropy, backward, optimizer step) on one thread, batch 32, for the same
three networks. Run with Debian's torch on the OpenMP OpenBLAS, e.g.

  LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/openblas-openmp OPENBLAS_CORETYPE=SkylakeX \
      /usr/bin/python3 tools/bench/train_step_torch.py [--runs 7] [--optimizer sgd|nesterov]

Prints one line per network: median and min over runs of the mean step time of a run, in CPU
time of the process (time.process_time: on a shared machine wall time also counts the time other
processes hold the core; torch runs on one thread here), GFLOP/s from the same FLOP counts as the
C++ benchmark prints, and the median wall time.
"""
import argparse
import os
import statistics
import time

# One thread for everything: torch.set_num_threads(1) alone leaves OpenMP/OpenBLAS worker threads
# that spin and would be counted in the process CPU time.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import torch
import torch.nn as nn

BATCH = 32


def mlp(sizes, dropout):
    layers = []
    if dropout:
        layers.append(nn.Dropout(dropout[0]))
    for i in range(len(sizes) - 2):
        layers += [nn.Linear(sizes[i], sizes[i + 1]), nn.ReLU()]
        if dropout:
            layers.append(nn.Dropout(dropout[1]))
    layers.append(nn.Linear(sizes[-2], sizes[-1]))
    return nn.Sequential(*layers)


def lenet():
    return nn.Sequential(
        nn.Unflatten(1, (1, 28, 28)),
        nn.Conv2d(1, 32, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(3136, 512), nn.ReLU(), nn.Linear(512, 10))


def time_steps(net, optimizer_kind, steps, runs):
    torch.manual_seed(1)
    x = torch.randn(BATCH, 784)
    y = torch.randint(0, 10, (BATCH,))
    if optimizer_kind == "nesterov":
        opt = torch.optim.SGD(net.parameters(), lr=0.001, momentum=0.99, nesterov=True)
    else:
        opt = torch.optim.SGD(net.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    net.train()

    def step():
        opt.zero_grad(set_to_none=False)
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()

    for _ in range(max(5, steps // 5)):
        step()
    cpu, wall = [], []
    for _ in range(runs):
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(steps):
            step()
        cpu.append((time.process_time() - c0) / steps)
        wall.append((time.perf_counter() - t0) / steps)
    return cpu, wall


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--optimizer", choices=["sgd", "nesterov"], default="sgd")
    parser.add_argument("--filter", default="", help="run only networks whose name contains this")
    args = parser.parse_args()
    torch.set_num_threads(1)
    # Training FLOPs per step (forward + backward, multiply-add = 2), as train_step_bench prints.
    nets = [
        ("mlp 784-256-10", lambda: mlp([784, 256, 10], None), 400, 26.2e6),
        ("mlp 784-1024x3-10 dropout", lambda: mlp([784, 1024, 1024, 1024, 10], [0.2, 0.5]), 40,
         508.0e6),
        ("lenet 28x28", lenet, 8, 2327.7e6),
    ]
    print(f"torch {torch.__version__}, threads {torch.get_num_threads()}, batch {BATCH}, "
          f"optimizer {args.optimizer}, {args.runs} runs")
    for name, make, steps, flops in nets:
        if args.filter not in name:
            continue
        cpu, wall = time_steps(make(), args.optimizer, steps, args.runs)
        med = statistics.median(cpu)
        print(f"{name:26s} cpu median {med * 1e6:8.1f} us  min {min(cpu) * 1e6:8.1f} us  "
              f"{flops / med * 1e-9:6.1f} GFLOP/s  (wall {statistics.median(wall) * 1e6:8.1f} us)")


if __name__ == "__main__":
    main()
