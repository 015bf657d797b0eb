import threading
import time

from explorer.models.loading import LoadedOnce


def test_threads_asking_at_once_load_once_and_share_the_value():
    calls = []

    def load():
        calls.append(threading.get_ident())
        time.sleep(0.05)  # long enough that the other threads ask while the first one loads
        return object()

    once = LoadedOnce(load)
    assert not once.loaded
    seen = []
    threads = [threading.Thread(target=lambda: seen.append(once())) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1 and once.loaded
    assert len(seen) == 8 and all(value is seen[0] for value in seen)


def test_a_failed_load_is_tried_again_at_the_next_use():
    attempts = []

    def load():
        attempts.append(1)
        if len(attempts) == 1:
            raise OSError("weights not readable yet")
        return "model"

    once = LoadedOnce(load)
    try:
        once()
    except OSError:
        pass
    assert not once.loaded
    assert once() == "model" and len(attempts) == 2
