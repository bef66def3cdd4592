"""torch.nn's containers against PyTorch 2.13: Sequential, ModuleList, ModuleDict,
ParameterList, ParameterDict (indexing, slicing, mutation, arithmetic, iteration,
state_dict keys, reprs and errors), run as one program in both libraries."""

from __future__ import annotations

from collections import OrderedDict

from nn_support import both


def _names(module):
    return [
        type(m).__name__ + (f"({m.in_features})" if hasattr(m, "in_features") else "")
        for m in module
    ]


def test_sequential():
    def program(lib, log):
        nn = lib.nn
        lin = [nn.Linear(i + 1, i + 2) for i in range(4)]
        seq = nn.Sequential(*lin)
        log(
            len(seq), seq[0] is lin[0], seq[-1] is lin[3], type(seq[1:3]).__name__, _names(seq[::2])
        )
        log(repr(seq[1:3]), list(seq[1:3]._modules))
        named = nn.Sequential(OrderedDict([("first", lin[0]), ("second", lin[1])]))
        log(repr(named), list(named.state_dict()), named.first is lin[0])
        log.attempt(lambda: seq[4])
        log.attempt(lambda: seq["0"])
        seq[1] = nn.Identity()
        del seq[0]
        log(_names(seq), list(seq._modules))
        seq.append(nn.Flatten()).insert(0, nn.Identity()).insert(-1, nn.Linear(9, 9))
        log(_names(seq), list(seq._modules))
        log.attempt(lambda: seq.insert(10, nn.Identity()))
        log.attempt(lambda: seq.insert(0, 3))
        popped = seq.pop(1)
        log(type(popped).__name__, _names(seq))
        seq.extend([nn.Identity(), nn.Identity()])
        del seq[1:3]
        log(_names(seq), list(seq._modules))
        both_ = nn.Sequential(lin[0]) + nn.Sequential(lin[1], lin[2])
        log(
            _names(both_),
            _names(nn.Sequential(lin[0], lin[1]) * 2),
            _names(2 * nn.Sequential(lin[3])),
        )
        grow = nn.Sequential(lin[0])
        grow += nn.Sequential(lin[1])
        grow *= 2
        log(_names(grow), list(grow._modules))
        log.attempt(lambda: nn.Sequential() + [1])
        log.attempt(lambda: nn.Sequential() * 0)
        log.attempt(lambda: nn.Sequential() * 1.5)
        log([k for k in dir(seq) if k.isdigit()], "append" in dir(seq))
        chain = nn.Sequential(nn.Linear(2, 3), nn.Identity(), nn.Linear(3, 1))
        lib.manual_seed(0)
        log(len(list(chain.parameters())), chain(lib.ones(4, 2)).shape)

    both(program)


def test_module_list_and_dict():
    def program(lib, log):
        nn = lib.nn
        layers = nn.ModuleList([nn.Linear(1, 1), nn.Linear(2, 2)])
        layers.append(nn.Linear(3, 3)).extend([nn.Identity()])
        layers += [nn.Flatten()]
        log(len(layers), _names(layers), _names(layers[1:3]), type(layers[1:]).__name__)
        layers.insert(1, nn.Identity())
        layers[0] = nn.Linear(7, 7)
        del layers[-1]
        log(_names(layers), list(layers._modules), type(layers.pop(0)).__name__, _names(layers))
        log(_names(layers + nn.ModuleList([nn.Identity()])), list(layers.state_dict()))
        log.attempt(lambda: layers[10])
        log.attempt(lambda: layers.extend(3))
        log.attempt(lambda: layers(1))
        log(repr(nn.ModuleList([nn.Identity()] * 3 + [nn.Linear(1, 1)] * 2 + [nn.Identity()])))
        blocks = nn.ModuleDict({"b": nn.Linear(1, 2), "a": nn.Identity()})
        blocks["c"] = nn.Flatten()
        blocks.update([("d", nn.Identity())])
        blocks.update(nn.ModuleDict({"e": nn.Identity()}))
        log(list(blocks), list(blocks.keys()), _names(blocks.values()), "a" in blocks, len(blocks))
        log(type(blocks.pop("a")).__name__, list(blocks), [k for k, _ in blocks.items()])
        del blocks["b"]
        log(list(blocks.state_dict()), repr(blocks))
        log.attempt(lambda: blocks.update(3))
        log.attempt(lambda: blocks.update([("x",)]))
        log.attempt(lambda: blocks.update([3]))
        log.attempt(lambda: blocks.__setitem__("z", 3))
        blocks.clear()
        log(len(blocks), repr(blocks))

    both(program)


def test_parameter_list_and_dict():
    def program(lib, log):
        nn = lib.nn
        plist = nn.ParameterList([lib.ones(2), nn.Parameter(lib.zeros(1, 3))])
        plist.append(lib.ones(1, dtype=lib.float64)).extend([lib.ones(4)])
        plist.append("not a tensor")
        log(len(plist), [type(p).__name__ for p in plist], list(plist.state_dict()))
        log(type(plist[1:3]).__name__, len(plist[::2]), [n for n, _ in plist.named_parameters()])
        plist[0] = lib.full((2,), 5.0)
        log(plist[0], type(plist[0]).__name__, repr(plist))
        log.attempt(lambda: plist[9])
        log.attempt(lambda: plist.extend(lib.ones(2)))
        log.attempt(lambda: plist(1))
        pdict = nn.ParameterDict({"w": lib.ones(2), "b": nn.Parameter(lib.zeros(1))})
        pdict["x"] = lib.ones(1, 2)
        pdict.update([("y", lib.ones(3))])
        log(
            list(pdict),
            list(pdict.keys()),
            [type(v).__name__ for v in pdict.values()],
            "w" in pdict,
        )
        log(list(pdict.state_dict()), repr(pdict), list(reversed(pdict)))
        log(pdict.get("zz", 4), type(pdict.setdefault("s", lib.ones(1))).__name__, len(pdict))
        log(type(pdict.pop("w")).__name__, pdict.popitem()[0], list(pdict))
        merged = pdict | nn.ParameterDict({"m": lib.ones(1)})
        log(list(merged), list(pdict.copy()), list(pdict.fromkeys(["p", "q"], lib.ones(1))))
        log.attempt(lambda: pdict[3])
        log.attempt(lambda: pdict.update(3))
        log.attempt(lambda: pdict(1))
        pdict.clear()
        log(len(pdict), repr(pdict))

    both(program)
