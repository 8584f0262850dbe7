"""A small ResNet (He et al. 2016): stages of BasicBlocks with identity shortcuts.

A block computes relu(x + F(x)) with F = conv-bn-relu-conv-bn: the shortcut lets the
gradient reach early layers unchanged, which is what makes deep stacks trainable.
"""

from minigrad import nn


class BasicBlock(nn.Module):
    """relu(shortcut(x) + bn2(conv2(relu(bn1(conv1(x)))))), 3x3 convolutions; when the
    block changes width or downsamples (stride 2) the shortcut is a 1x1 conv + BN."""

    expansion = 1

    def __init__(self, in_channels, channels, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, channels, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)
        if stride != 1 or in_channels != channels:
            self.downsample = nn.Sequential(
                nn.Conv2d(in_channels, channels, 1, stride=stride, bias=False),
                nn.BatchNorm2d(channels),
            )
        else:
            self.downsample = None

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class ResNet(nn.Module):
    """stem (3x3 conv-bn-relu) -> stages of BasicBlocks (each after the first halves the
    resolution and widens) -> global average pool -> linear.

    `ResNet((1, 1, 1), (16, 32, 64))` is a 7-convolution network suited to small images
    (8x8 digits, 32x32 CIFAR); `ResNet((2, 2, 2, 2), (64, 128, 256, 512))` is ResNet-18's
    layout without the ImageNet stem.
    """

    def __init__(self, blocks=(1, 1, 1), widths=(16, 32, 64), num_classes=10, in_channels=1):
        super().__init__()
        if len(blocks) != len(widths) or not blocks:
            raise ValueError(
                f"ResNet: blocks {blocks} and widths {widths} must be non-empty and of equal length"
            )
        self.stem = nn.Sequential(
            nn.Conv2d(in_channels, widths[0], 3, padding=1, bias=False),
            nn.BatchNorm2d(widths[0]),
            nn.ReLU(),
        )
        stages, channels = [], widths[0]
        for i, (n, width) in enumerate(zip(blocks, widths)):
            layers = []
            for j in range(n):
                stride = 2 if i > 0 and j == 0 else 1
                layers.append(BasicBlock(channels, width, stride))
                channels = width
            stages.append(nn.Sequential(*layers))
        self.stages = nn.Sequential(*stages)
        self.pool = nn.GlobalAvgPool2d()
        self.fc = nn.Linear(channels, num_classes)

    def forward(self, x):
        x = self.stages(self.stem(x))
        return self.fc(self.pool(x).flatten(1))
