"""A small CNN with BatchNorm on 8x8 digits, SGD with momentum and weight decay."""

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset


def make_model():
    return nn.Sequential(
        nn.Conv2d(1, 8, kernel_size=3, padding=1),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 16, kernel_size=3, padding=1),
        nn.BatchNorm2d(16),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(16, 10),
    )


def main(data):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = make_model().to(device)
    rng = np.random.default_rng(1)
    for name, p in model.named_parameters():  # deterministic init through .data
        if name.endswith("weight") and p.dim() > 1:
            fan_in = p[0].numel()
            p.data = torch.from_numpy(
                (rng.standard_normal(tuple(p.shape)) / np.sqrt(fan_in)).astype(np.float32)
            )
        else:
            p.data.zero_()
            if "1." in name or "5." in name:  # the BatchNorm scales start at one
                p.data.fill_(1.0)

    x = torch.tensor(data["x_train"][:1024], dtype=torch.float32).unsqueeze(1) / 16.0
    y = torch.tensor(data["y_train"][:1024])
    loader = DataLoader(TensorDataset(x, y), batch_size=32)
    optimizer = optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    criterion = nn.CrossEntropyLoss()

    losses = []
    for _ in range(5):
        model.train()
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            loss = criterion(model(images), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())

    model.eval()
    with torch.no_grad():
        x_test = torch.tensor(data["x_test"], dtype=torch.float32).unsqueeze(1) / 16.0
        accuracy = (model(x_test).argmax(1) == torch.tensor(data["y_test"])).sum().item() / len(
            x_test
        )
    running_mean = model[1].running_mean.detach().cpu().numpy().copy()
    return {"losses": losses, "accuracy": accuracy, "running_mean": running_mean}
