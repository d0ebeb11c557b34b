#!/usr/bin/python3
"""The default scenario written directly in PyTorch, as a researcher would: the reference that
issue 4's speed target compares with ("a Python + PyTorch script doing the same reaches about
1,150 agent-steps/s on one core"). DETSGRAD (docs/algorithms.md) on the MNIST digits:
10 agents on a ring, each holding one digit, MLP 784-250-10 (He-normal hidden layer,
Glorot-normal output layer, zero biases, one common start), batch 32, plain SGD, a = 0.1,
b = 0.2525, threshold v0 = 1.5 with decay 0.1. Each agent's parameters are one flat tensor (the
layers are views into it), so the consensus update is one vector expression per agent. As in
dlsim, a sixth of each digit is held out and the rest normalised by its mean and deviation, and
each agent draws its batches from a reshuffled pass over its shard.

  /usr/bin/python3 tools/bench/detsgrad_torch.py [--iterations 1000] [--data DIR]

DIR holds 0.json .. 9.json (default: $DLSIM_DATA/mnist, else this checkout's data/mnist). Prints
agent-steps per second (wall and process CPU time) over the iterations after a warm-up, and the
broadcasts. It times only the training loop: compare with dlsim's driver time (summary.json's
time.training_s + events_s + updates_s), not its wall_s, which also counts loading, building and
evaluation. Run it both with Debian's default BLAS and with the OpenMP OpenBLAS
(LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/openblas-openmp OPENBLAS_CORETYPE=SkylakeX) and quote
the faster. Debian's python3-torch installed without its recommended packages runs on the
reference BLAS (libblas3): 126-152 agent-steps/s here against 659-829 with OpenBLAS
(2026-12-07); install libopenblas0-pthread and libopenblas0-openmp first.
"""
import argparse
import json
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import torch
import torch.nn.functional as F

AGENTS, HIDDEN, BATCH = 10, 250, 32
A, DA, B, DB, EPS = 0.1, 1.0, 0.2525, 0.1, 1e-5
V0, DV = 1.5, 0.1


def load_digits(folder):
    """Per digit, its training images (five sixths of them) as a (count, 784) float tensor,
    normalised by the training images' mean and deviation."""
    train = []
    for d in range(10):
        with open(os.path.join(folder, f"{d}.json")) as f:
            images = torch.tensor(json.load(f)["data"], dtype=torch.float32).view(-1, 784)
        images = images[torch.randperm(images.shape[0])]
        train.append(images[images.shape[0] // 6:])
    everything = torch.cat(train)
    mean, std = everything.mean(), everything.std()
    return [(x - mean) / std for x in train]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--warmup", type=int, default=50)
    data = os.path.join(os.environ["DLSIM_DATA"], "mnist") if "DLSIM_DATA" in os.environ else \
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../data/mnist")
    parser.add_argument("--data", default=data)
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(1)
    shards = load_digits(args.data)
    sizes = [(HIDDEN, 784), (HIDDEN,), (10, HIDDEN), (10,)]
    count = sum(torch.Size(s).numel() for s in sizes)

    def layers(p):
        out, at = [], 0
        for s in sizes:
            n = torch.Size(s).numel()
            out.append(p[at:at + n].view(s))
            at += n
        return out

    init = torch.empty(count)
    w1, b1, w2, b2 = layers(init)
    torch.nn.init.kaiming_normal_(w1, nonlinearity="relu")  # as dlsim's MLP
    torch.nn.init.xavier_normal_(w2)
    b1.zero_()
    b2.zero_()
    x = [init.clone().requires_grad_() for _ in range(AGENTS)]  # a common start, as dlsim's
    hat = [None] * AGENTS
    events = 0
    order = [torch.randperm(shard.shape[0]) for shard in shards]
    cursor = [0] * AGENTS

    def next_batch(i):
        if cursor[i] + BATCH > order[i].shape[0]:
            order[i] = torch.randperm(shards[i].shape[0])
            cursor[i] = 0
        cursor[i] += BATCH
        return shards[i][order[i][cursor[i] - BATCH:cursor[i]]]

    def iteration(k):
        nonlocal events
        alpha = A / (EPS * k + 1) ** DA
        beta = B / (EPS * k + 1) ** DB
        v = V0 / (EPS * k + 1) ** DV
        grads = []
        for i in range(AGENTS):
            with torch.no_grad():
                if hat[i] is None or torch.linalg.vector_norm(x[i] - hat[i]) > v:
                    hat[i] = x[i].detach().clone()  # broadcast: both neighbours hold this copy
                    events += 1
            w1, b1, w2, b2 = layers(x[i])
            logits = F.linear(F.relu(F.linear(next_batch(i), w1, b1)), w2, b2)
            loss = F.cross_entropy(logits, torch.full((BATCH,), i))
            x[i].grad = None
            loss.backward()
            grads.append(x[i].grad)
        with torch.no_grad():
            for i in range(AGENTS):
                left, right = hat[(i - 1) % AGENTS], hat[(i + 1) % AGENTS]
                x[i] -= beta * (2 * hat[i] - left - right) + alpha * grads[i]

    for k in range(args.warmup):
        iteration(k)
    events = 0
    wall, cpu = time.perf_counter(), time.process_time()
    for k in range(args.warmup, args.warmup + args.iterations):
        iteration(k)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    steps = AGENTS * args.iterations
    print(f"pytorch {torch.__version__}, one thread: {steps / wall:,.0f} agent-steps/s wall, "
          f"{steps / cpu:,.0f} per CPU second; broadcasts {events} of {steps} "
          f"(savings {1 - events / steps:.1%})")


if __name__ == "__main__":
    main()
