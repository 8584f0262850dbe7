"""A variational autoencoder on the digits (Kingma & Welling 2014), with the
reparameterisation trick drawing its noise from the framework's own generator."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class VAE(nn.Module):
    def __init__(self, pixels=64, hidden=128, latent=8):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(pixels, hidden), nn.ReLU())
        self.mu = nn.Linear(hidden, latent)
        self.logvar = nn.Linear(hidden, latent)
        self.decoder = nn.Sequential(
            nn.Linear(latent, hidden), nn.ReLU(), nn.Linear(hidden, pixels)
        )

    def forward(self, x):
        h = self.encoder(x)
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.decoder(z), mu, logvar


def loss_function(logits, x, mu, logvar):
    reconstruction = F.binary_cross_entropy_with_logits(logits, x, reduction="sum")
    kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return (reconstruction + kl) / x.size(0)


def main(data):
    torch.manual_seed(0)
    device = torch.device("cpu")
    x = torch.tensor(data["x_train"].reshape(len(data["x_train"]), -1) / 16.0, dtype=torch.float32)
    loader = DataLoader(TensorDataset(x), batch_size=128, shuffle=True)
    model = VAE().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)

    epoch_losses = []
    for epoch in range(8):
        total = 0.0
        for (batch,) in loader:
            batch = batch.to(device)
            logits, mu, logvar = model(batch)
            loss = loss_function(logits, batch, mu, logvar)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * batch.shape[0]
        epoch_losses.append(total / len(loader.dataset))
        print(f"epoch {epoch}: {epoch_losses[-1]:.4f}")

    with torch.no_grad():
        samples = torch.sigmoid(model.decoder(torch.randn(16, 8)))
    return {"epoch_losses": epoch_losses, "samples_shape": tuple(samples.shape)}
