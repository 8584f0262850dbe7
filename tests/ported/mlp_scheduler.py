"""An MLP on the digits with a DataLoader, Adam and a step learning-rate schedule."""

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset


class MLP(nn.Module):
    def __init__(self, in_features=64, hidden=64, classes=10):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden)
        self.fc2 = nn.Linear(hidden, classes)

    def forward(self, x):
        x = torch.flatten(x, 1)
        return self.fc2(F.relu(self.fc1(x)))


def main(data):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = MLP().to(device)
    rng = np.random.default_rng(0)
    with torch.no_grad():  # the same starting weights under both frameworks
        for p in model.parameters():
            p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.1))

    x_train = torch.tensor(data["x_train"], dtype=torch.float) / 16.0
    y_train = torch.tensor(data["y_train"], dtype=torch.long)
    loader = DataLoader(TensorDataset(x_train, y_train), batch_size=64, shuffle=False)
    optimizer = optim.Adam(model.parameters(), lr=1e-2)
    scheduler = optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)

    losses, log = [], []
    for epoch in range(4):
        model.train()
        running = 0.0
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(images), labels)
            loss.backward()
            optimizer.step()
            running += loss.item() * len(labels)
            losses.append(loss.item())
        scheduler.step()
        log.append(
            f"epoch {epoch}: loss {running / len(loader.dataset):.4f} lr "
            f"{scheduler.get_last_lr()[0]:.5f}"
        )

    model.eval()
    with torch.no_grad():
        x_test = torch.tensor(data["x_test"], dtype=torch.float32).to(device) / 16.0
        predictions = model(x_test).argmax(dim=1)
        accuracy = (predictions == torch.tensor(data["y_test"])).float().mean().item()
    return {"losses": losses, "accuracy": accuracy, "log": log}
