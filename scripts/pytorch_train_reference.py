#!/usr/bin/env python3
"""PyTorch reference for `alphazero bench`'s training figure: the same policy-value
network, batch, loss and optimizer as `alphazero_nn::bench::bench_training`, timed the same way.

Network (crates/nn/src/model.rs): conv3x3 stem (bias) -> BN -> ReLU, BLOCKS residual blocks
(conv3x3 -> BN -> ReLU -> conv3x3 -> BN, + input, ReLU), policy head (conv1x1 to 2 planes -> BN
-> ReLU -> flatten -> linear to A logits), value head (conv1x1 to 1 plane -> BN -> ReLU ->
linear to HIDDEN -> ReLU -> linear to 1 -> tanh). Input [B, 4, 15, 15] (15x15 Gomoku), A = 225.

Step (crates/nn/src/train.rs): training-mode forward, loss = cross-entropy of the policy over
legal actions (illegal logits set to -1e9 before the log-softmax) + MSE(value, z), the policy
entropy computed as well, backward, global gradient-norm clipping at 5, AdamW (lr 1e-3,
betas 0.9/0.999, eps 1e-8, weight decay 1e-4).

Batch as the Rust benchmark builds it: 0/1 planes, legal = action % 3 != 0, pi uniform over
the legal actions, z cycling 1, -1, 0.

Usage (a venv with the CPU or CUDA wheel of torch; the figure is for the CPU):
    python3 scripts/pytorch_train_reference.py [--threads 1] [--blocks 6] [--channels 64]
        [--batch 256] [--seconds 10] [--repeat 3]
Prints one line per repeat: `pytorch train 6x64 b256 threads 1: N samples/s`, then the best.
Compare with the same thread count of ours:
    RAYON_NUM_THREADS=1 alphazero bench nn   (the nn-train-6x64-gomoku15-b256 line)
"""
import argparse
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(y + x)


class PolicyValueNet(nn.Module):
    def __init__(self, planes, h, w, actions, blocks, channels, hidden):
        super().__init__()
        hw = h * w
        self.stem = nn.Conv2d(planes, channels, 3, padding=1)
        self.stem_bn = nn.BatchNorm2d(channels)
        self.blocks = nn.Sequential(*[Block(channels) for _ in range(blocks)])
        self.policy_conv = nn.Conv2d(channels, 2, 1)
        self.policy_bn = nn.BatchNorm2d(2)
        self.policy_fc = nn.Linear(2 * hw, actions)
        self.value_conv = nn.Conv2d(channels, 1, 1)
        self.value_bn = nn.BatchNorm2d(1)
        self.value_fc1 = nn.Linear(hw, hidden)
        self.value_fc2 = nn.Linear(hidden, 1)

    def forward(self, x):
        b = x.shape[0]
        x = F.relu(self.stem_bn(self.stem(x)))
        x = self.blocks(x)
        p = F.relu(self.policy_bn(self.policy_conv(x))).reshape(b, -1)
        logits = self.policy_fc(p)
        v = F.relu(self.value_bn(self.value_conv(x))).reshape(b, -1)
        v = torch.tanh(self.value_fc2(F.relu(self.value_fc1(v))))
        return logits, v.reshape(b)


def batch(b, planes, h, w, actions, gen):
    x = (torch.rand(b, planes, h, w, generator=gen) < 0.5).float()
    legal = torch.tensor([a % 3 != 0 for a in range(actions)], dtype=torch.float32)
    mask = legal.repeat(b, 1)
    pi = mask / legal.sum()
    z = torch.tensor([[1.0, -1.0, 0.0][i % 3] for i in range(b)])
    return x, mask, pi, z


def step(net, opt, x, mask, pi, z):
    logits, v = net(x)
    log_p = F.log_softmax(logits.masked_fill(mask < 0.5, -1.0e9), dim=1)
    policy_loss = -(pi * mask * log_p).sum(1).mean()
    entropy = -(log_p.exp() * log_p * mask).sum(1).mean()
    value_loss = (v - z).square().mean()
    total = policy_loss + value_loss
    opt.zero_grad(set_to_none=True)
    total.backward()
    torch.nn.utils.clip_grad_norm_(net.parameters(), 5.0)
    opt.step()
    return total.item(), entropy.item()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--blocks", type=int, default=6)
    ap.add_argument("--channels", type=int, default=64)
    ap.add_argument("--hidden", type=int, default=None, help="value head width (= channels)")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--seconds", type=float, default=10.0, help="measuring time per repeat")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    planes, h, w, actions = 4, 15, 15, 225
    hidden = args.hidden or args.channels
    net = PolicyValueNet(planes, h, w, actions, args.blocks, args.channels, hidden).train()
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
                            weight_decay=1e-4)
    gen = torch.Generator().manual_seed(0xBEEF)
    x, mask, pi, z = batch(args.batch, planes, h, w, actions, gen)
    name = f"{args.blocks}x{args.channels} b{args.batch} threads {args.threads}"
    step(net, opt, x, mask, pi, z)  # warm-up, as the Rust benchmark does
    best = 0.0
    for _ in range(args.repeat):
        start = time.perf_counter()
        steps = 0
        while steps == 0 or time.perf_counter() - start < args.seconds:
            step(net, opt, x, mask, pi, z)
            steps += 1
        rate = steps * args.batch / (time.perf_counter() - start)
        best = max(best, rate)
        print(f"pytorch train {name}: {rate:.1f} samples/s", flush=True)
    print(f"pytorch train {name}: best {best:.1f} samples/s (torch {torch.__version__})")


if __name__ == "__main__":
    main()
