"""LeNet-5 (LeCun et al. 1998): two convolution + pooling stages, then three linear layers."""

from minigrad import nn


class LeNet5(nn.Module):
    """conv5(6) -> relu -> maxpool2 -> conv5(16) -> relu -> maxpool2 -> 120 -> 84 -> classes.

    The first convolution pads by 2 (as for MNIST's 28x28, which the original drew at
    32x32), so `image_size` may be anything from 12 up: 28 gives the classic 16x5x5
    features, 16 (the digits upsampled 2x) gives 16x2x2. ReLU and max pooling replace the
    original's scaled tanh and trainable subsampling, as modern re-implementations do.
    """

    def __init__(self, num_classes=10, in_channels=1, image_size=28):
        super().__init__()
        if image_size < 12:
            raise ValueError(
                "LeNet5: image_size must be at least 12 (two 2x2 poolings and a 5x5 conv), got "
                f"{image_size}"
            )
        side = (image_size // 2 - 4) // 2  # after pool, conv5 without padding, pool
        self.features = nn.Sequential(
            nn.Conv2d(in_channels, 6, 5, padding=2),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(6, 16, 5),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.classifier = nn.Sequential(
            nn.Flatten(),
            nn.Linear(16 * side * side, 120),
            nn.ReLU(),
            nn.Linear(120, 84),
            nn.ReLU(),
            nn.Linear(84, num_classes),
        )

    def forward(self, x):
        return self.classifier(self.features(x))
