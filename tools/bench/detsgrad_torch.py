#!/usr/bin/python3
"""The default scenario written directly in PyTorch, as a researcher would: the reference that
issue 4's speed target compares with ("a Python + PyTorch script doing the same reaches about
1,150 agent-steps/s on one core"). DETSGRAD on the 10,000 MNIST digits: 10 agents on a ring,
each holding one digit, MLP 784-250-10, batch 32, plain SGD, a = 0.1, b = 0.2525, threshold
v0 = 1.5 with decay 0.1 (ALGORITHMS.md, "DETSGRAD"). Each agent's parameters are one flat tensor
(the layers are views into it), so the consensus update is one vector expression per agent.

  /usr/bin/python3 tools/bench/detsgrad_torch.py [--iterations 1000] [--data data/mnist]

Prints agent-steps per second (wall and process CPU time) over the iterations after a warm-up, and
the broadcasts. Compare with the same scenario in dlsim, one thread, in the same session:
  build/dlsim run --threads 1 --set /run/iterations=1000 --set /run/eval_every=1000
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
    """Per digit, its images as a (count, 784) float tensor normalised to mean 0, deviation 1."""
    raw = []
    for d in range(10):
        with open(os.path.join(folder, f"{d}.json")) as f:
            raw.append(torch.tensor(json.load(f)["data"], dtype=torch.float32).view(-1, 784))
    everything = torch.cat(raw)
    mean, std = everything.mean(), everything.std()
    return [(x - mean) / std for x in raw]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--data", default=os.path.join(os.path.dirname(__file__), "../../data/mnist"))
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
    torch.nn.init.kaiming_normal_(w1, nonlinearity="relu")  # He normal, as dlsim's MLP
    torch.nn.init.kaiming_normal_(w2, nonlinearity="relu")
    b1.zero_()
    b2.zero_()
    x = [init.clone().requires_grad_() for _ in range(AGENTS)]  # a common start, as dlsim's
    hat = [None] * AGENTS
    events = 0

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
            batch = torch.randint(0, shards[i].shape[0], (BATCH,))
            w1, b1, w2, b2 = layers(x[i])
            logits = F.linear(F.relu(F.linear(shards[i][batch], w1, b1)), w2, b2)
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
