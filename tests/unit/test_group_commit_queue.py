"""The group-commit queue of infra/store/recorder.py on its own: who sends, who waits, who leads
next. (The batches themselves, against PostgreSQL: tests/contract/test_group_commit.py.)"""

from __future__ import annotations

from infra.store.recorder import MOST_BATCHED, _Appending, _Queue


def waiting_in(queue: _Queue) -> _Appending:
    """A queued append (the queue must be busy)."""
    appending = queue.enter([], None)
    assert appending is not None
    return appending


def test_the_first_append_goes_at_once_and_the_others_wait() -> None:
    queue = _Queue()
    assert queue.enter([], None) is None
    waiting = queue.enter([], None)
    assert waiting is not None
    assert not waiting.ready.is_set()
    assert queue.queued == 1


def test_an_idle_queue_after_the_last_call_sends_the_next_append_at_once() -> None:
    queue = _Queue()
    assert queue.enter([], None) is None
    queue.hand_over()
    assert queue.enter([], None) is None


def test_the_first_waiting_leads_the_next_batch_with_those_behind_it() -> None:
    queue = _Queue()
    queue.enter([], None)
    waiting = [waiting_in(queue) for _ in range(MOST_BATCHED + 2)]
    queue.hand_over()
    leader = waiting[0]
    assert leader.lead
    assert leader.ready.is_set()
    assert not any(each.ready.is_set() for each in waiting[1:])
    assert queue.batch_of(leader) == waiting[:MOST_BATCHED]
    # The lead then passes to the first left behind, never back to the same thread.
    queue.hand_over()
    assert waiting[MOST_BATCHED].lead
    assert queue.batch_of(waiting[MOST_BATCHED]) == waiting[MOST_BATCHED:]
    queue.hand_over()
    assert queue.enter([], None) is None
    # Four calls (one alone, two batches, one alone) carried every append.
    assert (queue.calls, queue.appends) == (4, MOST_BATCHED + 4)


def test_a_thread_that_leaves_while_waiting_is_out_of_the_queue() -> None:
    queue = _Queue()
    queue.enter([], None)
    gone, stays = waiting_in(queue), waiting_in(queue)
    queue.leave(gone)
    queue.hand_over()
    assert stays.lead
    assert not gone.lead


def test_a_leader_that_leaves_passes_the_lead_on() -> None:
    queue = _Queue()
    queue.enter([], None)
    chosen, next_one = waiting_in(queue), waiting_in(queue)
    queue.hand_over()
    assert chosen.lead
    queue.leave(chosen)
    assert next_one.lead
    assert next_one.ready.is_set()
