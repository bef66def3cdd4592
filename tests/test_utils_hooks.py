"""torch.utils.hooks.RemovableHandle against PyTorch 2.13: ids, removal from the hook dict
and the extra dicts, the context manager, and its pickled state."""

from __future__ import annotations

import pickle
from collections import OrderedDict

from nn_support import both

import ember.utils.hooks  # noqa: F401  (torch.utils.hooks, imported as PyTorch's is)


def test_removable_handle():
    def program(lib, log):
        hooks_module = lib.utils.hooks
        handle_class = hooks_module.RemovableHandle
        hooks, flags, more = OrderedDict(), OrderedDict(), OrderedDict()
        first = handle_class(hooks, extra_dict=flags)
        second = handle_class(hooks, extra_dict=[flags, more])
        log(second.id - first.id, handle_class.next_id - second.id)
        hooks[first.id] = "a"
        hooks[second.id] = "b"
        flags[first.id] = flags[second.id] = more[second.id] = True
        second.remove()
        second.remove()
        log(list(hooks.values()), len(flags), len(more))
        with handle_class(hooks) as third:
            hooks[third.id] = "c"
            log(len(hooks))
        log(list(hooks.values()))
        state = first.__getstate__()
        log(state[0] is hooks, state[1] == first.id, len(state[2]))
        revived = pickle.loads(pickle.dumps(first))
        log(revived.id == first.id, revived.hooks_dict_ref() is not None)
        log(hooks_module.unserializable_hook(lambda: None).__torch_unserializable__)

    both(program)
