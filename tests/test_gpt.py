"""models.GPT: the same network as PyTorch computes it, causality, the KV cache (cached
and uncached agree), grouped-query attention, tied weights, the three position options,
float64 gradients, a memorisation test and clear errors."""

import re

import numpy as np
import pytest
import torch

import minigrad as mg
import minigrad.optim as optim
from minigrad.autograd import gradcheck
from minigrad.models import GPT
from minigrad.models.gpt import sample

POSITIONS = ["rope", "learned", "sinusoidal"]


def tiny(pos="rope", n_kv_heads=None, seed=0, **kwargs):
    mg.manual_seed(seed)
    config = dict(vocab_size=11, d_model=16, n_layers=2, n_heads=4, max_len=12)
    config.update(kwargs)
    return GPT(**config, n_kv_heads=n_kv_heads, pos=pos)


def ids(*shape, vocab=11, seed=1):
    return mg.tensor(np.random.default_rng(seed).integers(0, vocab, shape))


# ---- the network itself, against PyTorch ---------------------------------------------------------
def torch_gpt(model, idx):
    """The same GPT written with torch.nn.functional, reading model's weights (float64):
    pre-norm blocks, GELU MLP, causal grouped-query SDPA, learned positions, tied head."""
    import torch.nn.functional as tF

    params = {
        k: torch.tensor(v.numpy(), dtype=torch.float64, requires_grad=True)
        for k, v in model.state_dict().items()
    }
    params["lm_head.weight"] = params["tok_emb.weight"]  # tied: one tensor
    H, Hkv, D = model.n_heads, model.n_kv_heads, model.head_dim
    idx = torch.from_numpy(idx.numpy())
    B, T = idx.shape
    (pos_key,) = [k for k in params if k.startswith("pos_emb.")]
    x = params["tok_emb.weight"][idx] + params[pos_key][:T]
    for i in range(model.n_layers):
        p = {k[len(f"blocks.{i}.") :]: v for k, v in params.items() if k.startswith(f"blocks.{i}.")}
        h = tF.layer_norm(x, (model.d_model,), p["ln_1.weight"], p["ln_1.bias"])
        q, k, v = tF.linear(h, p["attn.qkv.weight"], p["attn.qkv.bias"]).split(
            [H * D, Hkv * D, Hkv * D], dim=-1
        )
        q, k, v = (t.reshape(B, T, -1, D).transpose(1, 2) for t in (q, k, v))
        y = tF.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        x = x + tF.linear(
            y.transpose(1, 2).reshape(B, T, -1), p["attn.proj.weight"], p["attn.proj.bias"]
        )
        h = tF.layer_norm(x, (model.d_model,), p["ln_2.weight"], p["ln_2.bias"])
        x = x + tF.linear(
            tF.gelu(tF.linear(h, p["mlp.fc.weight"], p["mlp.fc.bias"])),
            p["mlp.proj.weight"],
            p["mlp.proj.bias"],
        )
    x = tF.layer_norm(x, (model.d_model,), params["ln_f.weight"], params["ln_f.bias"])
    return x @ params["lm_head.weight"].T, params


@pytest.mark.parametrize("n_kv_heads", [4, 2, 1])
def test_logits_and_gradients_match_the_same_network_in_pytorch(n_kv_heads):
    model = tiny("learned", n_kv_heads).double()
    idx = ids(3, 9)
    logits = model(idx)
    expected, params = torch_gpt(model, idx)
    np.testing.assert_allclose(
        logits.detach().numpy(), expected.detach().numpy(), rtol=1e-10, atol=1e-12
    )
    weights = np.random.default_rng(2).standard_normal(logits.shape)
    (logits * mg.tensor(weights)).sum().backward()
    (expected * torch.from_numpy(weights)).sum().backward()
    for name, p in model.named_parameters():
        np.testing.assert_allclose(
            p.grad.numpy(), params[name].grad.numpy(), rtol=1e-8, atol=1e-10, err_msg=name
        )


# ---- causality and positions ---------------------------------------------------------------------
@pytest.mark.parametrize("pos", POSITIONS)
def test_changing_later_tokens_leaves_earlier_logits_unchanged(pos):
    model = tiny(pos, n_kv_heads=2)
    idx = ids(2, 10)
    before = model(idx).detach().numpy()
    for t in (0, 4, 8):
        changed = idx.numpy().copy()
        changed[:, t + 1 :] = (changed[:, t + 1 :] + 1 + np.arange(9 - t)) % 11
        after = model(mg.tensor(changed)).detach().numpy()
        np.testing.assert_allclose(after[:, : t + 1], before[:, : t + 1], rtol=1e-5, atol=1e-6)
        # later ones do see the change
        assert np.abs(after[:, t + 1 :] - before[:, t + 1 :]).max() > 1e-3


@pytest.mark.parametrize("pos", POSITIONS)
def test_every_position_option_makes_order_matter(pos):
    # Attention without positions is a set operation: the last position's output would
    # not change if two earlier tokens swapped places. Each option must break that.
    model = tiny(pos)
    for p in model.parameters():  # larger weights than the init's, so attention is far from uniform
        p.data = p.data + mg.randn(*p.shape) * 0.3
    idx = ids(1, 8)
    swapped = idx.numpy().copy()
    swapped[0, [1, 4]] = swapped[0, [4, 1]]
    assert swapped[0, 1] != swapped[0, 4]
    last = model(idx).detach().numpy()[0, -1]
    assert np.abs(model(mg.tensor(swapped)).detach().numpy()[0, -1] - last).max() > 1e-4


def test_position_options_hold_the_right_parameters():
    names = {pos: {n for n, _ in tiny(pos).named_parameters()} for pos in POSITIONS}
    assert not any(n.startswith("pos_emb") for n in names["rope"] | names["sinusoidal"])
    assert any(n.startswith("pos_emb") for n in names["learned"])
    assert "rope" not in "".join(tiny("rope").state_dict())  # cos/sin are not weights


# ---- the KV cache --------------------------------------------------------------------------------
@pytest.mark.parametrize("pos", POSITIONS)
@pytest.mark.parametrize("n_kv_heads", [4, 1])
def test_cached_logits_equal_the_full_forward(pos, n_kv_heads):
    model = tiny(pos, n_kv_heads).eval()
    idx = ids(2, 12)
    full = model(idx).detach().numpy()
    cache = model.new_cache(batch_size=2)
    chunks = [
        model(idx[:, a:b], cache=cache).detach().numpy()
        for a, b in ((0, 5), (5, 6), (6, 9), (9, 10), (10, 12))
    ]
    assert cache.length == 12
    np.testing.assert_allclose(np.concatenate(chunks, axis=1), full, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("pos", POSITIONS)
@pytest.mark.parametrize("n_kv_heads", [4, 1])
@pytest.mark.parametrize(
    "chunks", [((0, 11), (11, 12)), ((0, 4), (4, 5), (5, 9), (9, 12))], ids=["prefill-step", "4"]
)
def test_cached_forward_has_the_gradients_of_the_full_forward(pos, n_kv_heads, chunks):
    """Under grad mode the cache keeps the graph: the new tokens' keys and values, and the
    earlier ones made with grad, so a loss over the logits of a cached forward (a prefill,
    then steps) has the gradients of the same loss over the uncached forward, in float64."""
    model = tiny(pos, n_kv_heads).double()  # dropout 0: train mode computes the same
    idx = ids(2, 12)
    weights = mg.tensor(np.random.default_rng(5).standard_normal((2, 12, 11)))

    def grads_of(logits):
        model.zero_grad()
        (logits * weights).sum().backward()
        return {name: p.grad.numpy().copy() for name, p in model.named_parameters()}

    full = model(idx)
    expected = grads_of(full)
    cache = model.new_cache(batch_size=2)
    cached = mg.cat([model(idx[:, a:b], cache=cache) for a, b in chunks], dim=1)
    np.testing.assert_allclose(
        cached.detach().numpy(), full.detach().numpy(), rtol=1e-10, atol=1e-12
    )
    got = grads_of(cached)
    for name, grad in expected.items():
        np.testing.assert_allclose(got[name], grad, rtol=1e-8, atol=1e-12, err_msg=name)


def test_cached_step_gradient_reaches_its_own_keys_and_values():
    """Only the last step in the loss: its query attends to its own key and value (in the
    graph) and to the prefill's; the gradient equals the full forward's for the last row."""
    model = tiny("rope").double()
    idx = ids(1, 8)
    w = mg.tensor(np.random.default_rng(6).standard_normal((1, 1, 11)))
    model.zero_grad()
    (model(idx)[:, -1:] * w).sum().backward()
    expected = model.blocks[0].attn.qkv.weight.grad.numpy().copy()
    model.zero_grad()
    cache = model.new_cache(1)
    model(idx[:, :7], cache=cache)
    (model(idx[:, 7:], cache=cache) * w).sum().backward()
    np.testing.assert_allclose(
        model.blocks[0].attn.qkv.weight.grad.numpy(), expected, rtol=1e-8, atol=1e-12
    )


@pytest.mark.parametrize("pos", POSITIONS)
def test_cached_and_uncached_generation_give_the_same_tokens(pos):
    model = tiny(pos, n_kv_heads=2)  # max_len 12: the 20 new tokens run past the context
    prompt = ids(3, 5)
    mg.manual_seed(7)
    cached = model.generate(prompt, 20, temperature=1.3, top_k=6)
    mg.manual_seed(7)
    uncached = model.generate(prompt, 20, temperature=1.3, top_k=6, use_cache=False)
    assert cached.shape == (3, 25) and cached.dtype == mg.int64
    np.testing.assert_array_equal(cached.numpy(), uncached.numpy())
    np.testing.assert_array_equal(cached.numpy()[:, :5], prompt.numpy())
    assert len(np.unique(cached.numpy()[:, 5:])) > 3  # sampled, not one token repeated
    assert model.training  # generate restores the mode it found


def test_with_the_cache_each_step_feeds_one_token_until_the_context_is_full():
    model = tiny("rope")  # max_len 12
    lengths = []
    model.tok_emb.register_forward_hook(lambda module, args, out: lengths.append(args[0].shape[1]))
    model.generate(ids(1, 4), 12)
    # the prompt (4), then 8 single tokens fill the cache to 12; then the window of the
    # last 12 tokens runs again each step, as without a cache
    assert lengths == [4] + [1] * 8 + [12] * 3
    lengths.clear()
    model.generate(ids(1, 4), 3, use_cache=False)
    assert lengths == [4, 5, 6]


def test_prompts_longer_than_the_context_are_cropped():
    model = tiny("learned")  # max_len 12
    prompt = ids(2, 20)
    mg.manual_seed(3)
    out = model.generate(prompt, 2, temperature=0)
    expected = model(prompt[:, -12:]).detach().numpy()[:, -1].argmax(-1)
    np.testing.assert_array_equal(out.numpy()[:, 20], expected)


# ---- generate: arguments checked first, the mode restored whatever happens -----------------------
def count_forwards(model):
    calls = []
    model.tok_emb.register_forward_hook(lambda module, args, out: calls.append(1))
    return calls


def test_generate_restores_the_train_mode_when_it_fails_midway():
    model = tiny()
    assert model.training
    calls = count_forwards(model)

    def fail_on_the_third_step(module, args, out):
        if len(calls) == 3:
            raise RuntimeError("boom")

    model.blocks[1].register_forward_hook(fail_on_the_third_step)
    with pytest.raises(RuntimeError, match="boom"):
        model.generate(ids(1, 3), 5)
    assert len(calls) == 3  # it did fail midway, in eval mode
    assert all(m.training for m in model.modules())
    model.eval()
    calls.clear()
    with pytest.raises(RuntimeError, match="boom"):
        model.generate(ids(1, 3), 5)
    assert not any(m.training for m in model.modules())  # an eval model stays in eval


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(temperature=float("nan")), "temperature must be a finite number >= 0"),
        (dict(temperature=float("inf")), "temperature must be a finite number >= 0"),
        (dict(temperature=-0.5), "temperature must be a finite number >= 0"),
        (dict(temperature="hot"), "temperature must be a finite number >= 0"),
        (dict(temperature=None), "temperature must be a finite number >= 0"),
        (dict(top_k=0), "top_k must be a positive int or None, got 0"),
        (dict(top_k=-2), "top_k must be a positive int or None, got -2"),
        (dict(top_k=2.5), "top_k must be a positive int or None, got 2.5"),
        (dict(top_k=True), "top_k must be a positive int or None, got True"),
        (dict(max_new_tokens=-1), "max_new_tokens must be an int >= 0, got -1"),
        (dict(max_new_tokens=2.5), "max_new_tokens must be an int >= 0, got 2.5"),
        (dict(max_new_tokens=None), "max_new_tokens must be an int >= 0, got None"),
        (dict(max_new_tokens=True), "max_new_tokens must be an int >= 0, got True"),
        (dict(idx=mg.tensor([[1, 11]])), "token id 11 is out of range"),
    ],
    ids=repr,
)
def test_generate_checks_its_arguments_before_any_work(kwargs, match):
    model = tiny()
    calls = count_forwards(model)
    args = dict(idx=ids(1, 3), max_new_tokens=4) | kwargs
    with pytest.raises((ValueError, TypeError, IndexError), match=match):
        model.generate(**args)
    assert calls == [] and model.training


def test_generate_zero_new_tokens_returns_the_prompt():
    model = tiny()
    prompt = ids(2, 3)
    np.testing.assert_array_equal(model.generate(prompt, 0).numpy(), prompt.numpy())
    np.testing.assert_array_equal(model.generate(prompt, np.int64(0)).numpy(), prompt.numpy())


@pytest.mark.parametrize("temperature", [float("nan"), float("inf"), -1.0])
def test_sample_refuses_a_temperature_that_is_not_a_finite_number_at_least_0(temperature):
    with pytest.raises(ValueError, match="sample: temperature must be a finite number >= 0"):
        sample(mg.tensor([[1.0, 2.0, 3.0]]), temperature)


# ---- sampling ------------------------------------------------------------------------------------
def test_temperature_zero_and_top_k_one_are_greedy():
    logits = mg.tensor(np.random.default_rng(0).standard_normal((5, 11)).astype(np.float32))
    greedy = logits.numpy().argmax(-1)[:, None]
    np.testing.assert_array_equal(sample(logits, temperature=0).numpy(), greedy)
    np.testing.assert_array_equal(sample(logits, top_k=1).numpy(), greedy)


def test_top_k_draws_only_the_k_most_likely_tokens_and_seeds_repeat():
    # token 10 most likely
    logits = mg.tensor(np.tile(np.arange(11, dtype=np.float32) / 4, (400, 1)))
    mg.manual_seed(0)
    drawn = sample(logits, temperature=2.0, top_k=3).numpy()
    assert set(np.unique(drawn)) == {8, 9, 10}
    mg.manual_seed(0)
    np.testing.assert_array_equal(sample(logits, temperature=2.0, top_k=3).numpy(), drawn)
    counts = np.bincount(sample(logits, temperature=0.01).numpy().ravel(), minlength=11)
    assert counts[10] == 400  # a low temperature: nearly greedy


# ---- grouped-query attention ---------------------------------------------------------------------
@pytest.mark.parametrize("n_kv_heads", [2, 1])
def test_grouped_query_shapes(n_kv_heads):
    model = tiny(n_kv_heads=n_kv_heads)
    D = model.head_dim
    assert model.blocks[0].attn.qkv.weight.shape == ((4 + 2 * n_kv_heads) * D, 16)
    cache = model.new_cache(3)
    model(ids(3, 5), cache=cache)
    # the cache shrinks by H / Hkv
    assert cache.keys[0].shape == cache.values[1].shape == (3, n_kv_heads, 12, D)
    assert model(ids(3, 5)).shape == (3, 5, 11)


@pytest.mark.parametrize("n_kv_heads", [2, 1])
def test_grouped_query_equals_attention_with_the_key_value_heads_repeated(n_kv_heads):
    gqa = tiny("rope", n_kv_heads)
    mha = tiny("rope", None, seed=5)
    H, D, C = 4, gqa.head_dim, 16
    state = {k: v.numpy().copy() for k, v in gqa.state_dict().items()}
    for i in range(gqa.n_layers):
        for kind in ("weight", "bias"):
            packed = state[f"blocks.{i}.attn.qkv.{kind}"]
            q, k, v = np.split(packed, [C, C + n_kv_heads * D])
            # query head h uses key/value head h // (H / Hkv): repeat each head's rows in place
            k, v = (
                np.repeat(t.reshape(n_kv_heads, D, *t.shape[1:]), H // n_kv_heads, axis=0).reshape(
                    C, *t.shape[1:]
                )
                for t in (k, v)
            )
            state[f"blocks.{i}.attn.qkv.{kind}"] = np.concatenate([q, k, v])
    mha.load_state_dict(state)
    idx = ids(2, 9)
    np.testing.assert_allclose(
        mha(idx).detach().numpy(), gqa(idx).detach().numpy(), rtol=1e-5, atol=1e-6
    )


# ---- tied weights, config, state -----------------------------------------------------------------
def test_tied_output_layer_is_the_embedding_parameter():
    model = tiny()
    assert model.lm_head.weight is model.tok_emb.weight
    params = list(model.parameters())
    assert sum(p is model.tok_emb.weight for p in params) == 1
    untied = tiny(tie_weights=False)
    assert untied.lm_head.weight is not untied.tok_emb.weight
    assert sum(p.numel() for p in untied.parameters()) == sum(p.numel() for p in params) + 11 * 16
    # the shared matrix gets gradient from both ends: the rows of tokens that never occur
    # as input still move, through the output layer
    model(mg.zeros((1, 3), dtype=mg.int64)).sum().backward()
    assert np.abs(model.tok_emb.weight.grad.numpy()[1:]).max() > 0


def test_state_dict_round_trip_keeps_the_tie(tmp_path):
    model = tiny("learned", n_kv_heads=2)
    mg.save(model.state_dict(), tmp_path / "gpt.npz")
    again = GPT.from_config(model.get_config())
    again.load_state_dict(mg.load(tmp_path / "gpt.npz"))
    assert again.lm_head.weight is again.tok_emb.weight
    idx = ids(2, 7)
    np.testing.assert_array_equal(again(idx).detach().numpy(), model(idx).detach().numpy())
    assert (
        again.get_config()
        == model.get_config()
        == {
            "vocab_size": 11,
            "d_model": 16,
            "n_layers": 2,
            "n_heads": 4,
            "max_len": 12,
            "n_kv_heads": 2,
            "dropout": 0.0,
            "pos": "learned",
            "tie_weights": True,
            "bias": True,
        }
    )


def test_initialisation_scales_the_residual_projections_by_depth():
    model = tiny(d_model=64, n_layers=8, n_heads=4)
    stds = {n: p.detach().numpy().std() for n, p in model.named_parameters() if p.ndim == 2}
    assert stds["blocks.0.mlp.fc.weight"] == pytest.approx(0.02, rel=0.05)
    assert stds["blocks.3.attn.proj.weight"] == pytest.approx(0.02 / 4, rel=0.05)  # 1 / sqrt(2 * 8)
    assert stds["blocks.7.mlp.proj.weight"] == pytest.approx(0.02 / 4, rel=0.05)
    assert all(
        np.all(p.detach().numpy() == 0) for n, p in model.named_parameters() if n.endswith("bias")
    )


# ---- gradients and learning ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "pos, n_kv_heads, tie", [("rope", 1, True), ("learned", 2, False), ("sinusoidal", 2, True)]
)
def test_float64_gradients_of_every_parameter(pos, n_kv_heads, tie):
    mg.manual_seed(0)
    model = GPT(5, 4, 1, 2, max_len=6, n_kv_heads=n_kv_heads, pos=pos, tie_weights=tie).double()
    # away from the init's zeros and ones, where symmetry could hide a bug
    for p in model.parameters():
        p.data = p.data + mg.randn(*p.shape, dtype=mg.float64) * 0.3
    idx, target = ids(2, 5, vocab=5), ids(2, 5, vocab=5, seed=3)

    def loss(*params):
        return mg.nn.functional.cross_entropy(model(idx).reshape(-1, 5), target.reshape(-1))

    assert gradcheck(loss, tuple(model.parameters()))


def test_a_tiny_gpt_memorises_a_sequence():
    sequence = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3])
    model = tiny("rope", vocab_size=10, d_model=32, max_len=16)
    optimizer = optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.0)
    x, y = mg.tensor(sequence[None, :-1]), mg.tensor(sequence[None, 1:])
    for _ in range(120):
        loss = mg.nn.functional.cross_entropy(model(x).reshape(-1, 10), y.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert loss.item() < 0.05
    # greedy decoding from the first token replays the whole sequence ("1" is followed
    # by 4 and by 5, so the model must use more than the last token)
    np.testing.assert_array_equal(model.generate(x[:, :1], 15, temperature=0).numpy()[0], sequence)


# ---- errors --------------------------------------------------------------------------------------
def test_clear_errors():
    model = tiny()
    with pytest.raises(IndexError, match="token id 11 is out of range for vocab_size 11"):
        model(mg.tensor([[1, 11]]))
    with pytest.raises(IndexError, match="token id -1"):
        model(mg.tensor([[-1, 2]]))
    with pytest.raises(ValueError, match="13 tokens exceed the context length max_len=12"):
        model(ids(1, 13))
    cache = model.new_cache(1)
    model(ids(1, 10), cache=cache)
    with pytest.raises(ValueError, match="3 tokens after the 10 tokens in the cache exceed"):
        model(ids(1, 3), cache=cache)
    with pytest.raises(TypeError, match=r"integer \(int64\) tensor of token ids, got a float32"):
        model(mg.zeros(1, 3))
    with pytest.raises(TypeError, match="token ids"):
        model(mg.tensor([1, 2]))
    with pytest.raises(ValueError, match=r"n_heads \(3\) must divide d_model \(16\)"):
        GPT(11, 16, 1, 3, 8)
    with pytest.raises(ValueError, match=r"n_kv_heads \(3\) must divide n_heads \(4\)"):
        GPT(11, 16, 1, 4, 8, n_kv_heads=3)
    with pytest.raises(ValueError, match="pos must be one of"):
        GPT(11, 16, 1, 4, 8, pos="alibi")
    with pytest.raises(ValueError, match="even head dim"):
        GPT(11, 12, 1, 4, 8, pos="rope")
    with pytest.raises(ValueError, match="temperature must be a finite number >= 0"):
        model.generate(ids(1, 2), 1, temperature=-1)
    with pytest.raises(ValueError, match="top_k must be a positive int"):
        model.generate(ids(1, 2), 1, top_k=0)


@pytest.mark.parametrize(
    "changes,words",
    [
        (dict(vocab_size=0), "vocab_size must be a positive int, got 0"),
        (dict(d_model=-16), "d_model must be a positive int, got -16"),
        (dict(n_layers=0), "n_layers must be a positive int, got 0"),
        (dict(n_heads=0), "n_heads must be a positive int, got 0"),
        (dict(max_len=0), "max_len must be a positive int, got 0"),
        (dict(n_kv_heads=0), "n_kv_heads must be a positive int, got 0"),
        (dict(d_model=16.0), "d_model must be a positive int, got 16.0"),
        (dict(n_layers=True), "n_layers must be a positive int, got True"),
        (
            dict(d_model=18),
            "n_heads (4) must divide d_model (18) (each head gets d_model / n_heads)",
        ),
        (
            dict(n_kv_heads=3),
            "n_kv_heads (3) must divide n_heads (4) (each key/value head serves a group)",
        ),
        (dict(dropout=1.0), "dropout must be a number in [0, 1), got 1.0"),
        (dict(dropout="0.1"), "dropout must be a number in [0, 1), got '0.1'"),
    ],
)
def test_config_errors_name_the_argument(changes, words):
    config = dict(vocab_size=11, d_model=16, n_layers=1, n_heads=4, max_len=8)
    with pytest.raises(ValueError, match=f"^GPT: {re.escape(words)}"):
        GPT(**{**config, **changes})


def test_input_errors_name_the_id_and_the_length():
    model = tiny()  # vocab_size 11, max_len 12
    with pytest.raises(
        IndexError,
        match=re.escape("GPT: token id 12 is out of range for vocab_size 11 (ids 0..10)"),
    ):
        model(mg.tensor([[3, 4, 12, 13]]))  # the first bad id is named
    with pytest.raises(IndexError, match="token id 255 is out of range for vocab_size 11"):
        model(mg.tensor(np.array([[1, 255]], dtype=np.uint8)))
    with pytest.raises(ValueError, match="GPT: 13 tokens exceed the context length max_len=12"):
        model(ids(2, 13))
    for shape in [(0, 3), (2, 0)]:
        with pytest.raises(
            ValueError,
            match=re.escape(f"at least one row and one token per row, got shape {shape}"),
        ):
            model(mg.tensor(np.zeros(shape, dtype=np.int64)))


# ---- the loss in the model (nanoGPT's forward(idx, targets)) ---------------------------
def test_forward_with_targets_returns_the_logits_and_torchs_cross_entropy():
    model = tiny("learned", n_kv_heads=2).double()
    idx, targets = ids(2, 7), ids(2, 7, seed=5).numpy()
    targets[0, :3] = -1  # skipped, as nanoGPT's ignore_index=-1
    logits, loss = model(idx, mg.tensor(targets))
    np.testing.assert_array_equal(logits.detach().numpy(), model(idx).detach().numpy())
    expected, params = torch_gpt(model, idx)
    flat_targets = torch.tensor(targets).reshape(-1)
    flat_logits = expected.reshape(-1, 11)
    torch_loss = torch.nn.functional.cross_entropy(flat_logits, flat_targets, ignore_index=-1)
    np.testing.assert_allclose(loss.item(), torch_loss.item(), rtol=1e-10)
    loss.backward()
    torch_loss.backward()
    grads = dict(model.named_parameters())
    for name in ("tok_emb.weight", "blocks.1.attn.qkv.weight", "ln_f.bias"):
        expected_grad = params[name].grad.numpy()
        np.testing.assert_allclose(grads[name].grad.numpy(), expected_grad, rtol=1e-8, atol=1e-12)


def test_targets_must_be_token_ids_of_idx_shape():
    model = tiny()
    shapes = "idx's shape (2, 5) (one per token), got (2, 4)"
    with pytest.raises(ValueError, match=re.escape(f"targets must have {shapes}")):
        model(ids(2, 5), ids(2, 4))
    with pytest.raises(TypeError, match="targets must be an int64 tensor .* got a float32 tensor"):
        model(ids(2, 5), mg.zeros(2, 5))
    with pytest.raises(TypeError, match="targets must be an int64 tensor .* got a list"):
        model(ids(2, 5), [[1] * 5] * 2)
