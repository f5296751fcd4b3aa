"""The Tier-1 torch modules, shared by both exporters (``pte_fixtures/`` for hpx's PTE reader
tests, ``executorch_tier1/`` for the pinned runtime): one definition, so the two fixture sets
are exports of the same model.

Imported by the exporters from their own environment (it needs torch); hpx never imports it.
"""

from __future__ import annotations

import torch


class Tier1(torch.nn.Module):
    """The tier-1 trunk: conv3x3 -> hardswish -> conv3x3 -> leaky_relu(0.1) -> sub -> relu.

    The sub is a residual subtraction of the block input: ``relu(leaky_relu(conv2(...)) - x)``.
    Both convs keep 16 channels and 32x32 (padding 1), so the shapes of the two operands match.
    """

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = torch.nn.Conv2d(16, 16, kernel_size=3, padding=1)
        self.conv2 = torch.nn.Conv2d(16, 16, kernel_size=3, padding=1)
        self.hardswish = torch.nn.Hardswish()
        self.leaky_relu = torch.nn.LeakyReLU(negative_slope=0.1)
        self.relu = torch.nn.ReLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.leaky_relu(self.conv2(self.hardswish(self.conv1(x))))
        out: torch.Tensor = self.relu(y - x)
        return out


class Tier1Mean(torch.nn.Module):
    """Global average over H and W with keepdim (a 1x16x1x1 result)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.mean(x, dim=(2, 3), keepdim=True)
