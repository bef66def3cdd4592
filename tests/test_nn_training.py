"""A small model trained in both libraries: Embedding (padding_idx), Sequential of Linear
and Dropout in training mode, F.relu, F.cross_entropy, clip_grad_norm_ and a manual SGD
step under no_grad, a buffer updated in place; losses, norms, predictions, state_dict
keys and a reload compared with PyTorch 2.13 step by step."""

from __future__ import annotations

from nn_support import close


def _net(lib):
    nn = lib.nn
    F = nn.functional

    class Net(nn.Module):
        def __init__(self, vocab=20, dim=8, classes=3):
            super().__init__()
            self.emb = nn.Embedding(vocab, dim, padding_idx=0)
            self.body = nn.Sequential(nn.Linear(dim, 16), nn.Dropout(0.1), nn.Linear(16, 16))
            self.head = nn.Linear(16, classes)
            self.register_buffer("steps", lib.tensor(0))

        def forward(self, tokens):
            x = self.emb(tokens).mean(dim=1)
            return self.head(F.relu(self.body(x)))

    return Net


def test_training_matches_pytorch_step_by_step():
    def program(lib, log):
        lib.manual_seed(42)
        net = _net(lib)
        model = net()
        log(repr(model), sum(p.numel() for p in model.parameters()))
        tokens = lib.randint(1, 20, (32, 5))
        labels = lib.randint(0, 3, (32,))
        for _ in range(15):
            model.train()
            loss = lib.nn.functional.cross_entropy(model(tokens), labels)
            model.zero_grad()
            loss.backward()
            total = lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            with lib.no_grad():
                for p in model.parameters():
                    p -= 0.5 * p.grad
                model.steps += 1
            log(loss.item(), total.item())
        model.eval()
        with lib.no_grad():
            log(model(tokens[:4]).argmax(1), model.steps)
        clone = net()
        log(list(model.state_dict()), repr(clone.load_state_dict(model.state_dict())))
        log(lib.equal(clone.eval()(tokens), model(tokens)))

    close(program, rtol=1e-5, atol=1e-6)
