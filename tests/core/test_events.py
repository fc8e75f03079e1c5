from codeloop.events import (
    EventBus,
    EventRecorder,
    LLMCall,
    StageEnd,
    StageStart,
    TestResult,
    parse_event,
)


def test_events_round_trip_through_json_into_the_same_class():
    event = LLMCall(model="scripted", stage="analysis", prompt_tokens=12, completion_tokens=7,
                    seconds=0.5, run_id="r1")
    back = parse_event(event.model_dump_json())
    assert isinstance(back, LLMCall)
    assert back == event


def test_bus_fans_out_in_order_and_stamps_the_run_id():
    bus = EventBus(run_id="run-42")
    first, second = EventRecorder(), EventRecorder()
    bus.subscribe(first)
    bus.subscribe(second)
    bus.emit(StageStart(stage="analysis"))
    bus.emit(StageEnd(stage="analysis", seconds=1.0))
    assert [e.type for e in first.events] == ["stage_start", "stage_end"]
    assert [e.type for e in second.events] == ["stage_start", "stage_end"]
    assert all(e.run_id == "run-42" for e in first.events)


def test_a_failing_listener_does_not_break_the_job_or_other_listeners():
    bus = EventBus()
    seen = EventRecorder()

    def broken(_event):
        raise RuntimeError("front end bug")

    bus.subscribe(broken)
    bus.subscribe(seen)
    bus.emit(TestResult(passed=1, failed=0))
    assert len(seen.events) == 1


def test_unsubscribe_stops_delivery():
    bus = EventBus()
    seen = EventRecorder()
    unsubscribe = bus.subscribe(seen)
    bus.emit(StageStart(stage="a"))
    unsubscribe()
    bus.emit(StageStart(stage="b"))
    assert [e.stage for e in seen.events] == ["a"]


def test_a_debug_log_line_round_trips_through_json():
    from codeloop.events import DebugLog, TokenUsage, parse_event

    line = DebugLog(node="reviewer", agent="ReviewerAgent", event_type="result",
                    content="2 issues", metadata={"approved": False},
                    token_usage=TokenUsage(prompt_tokens=10, completion_tokens=5,
                                           total_tokens=15))
    back = parse_event(line.model_dump_json())
    assert back == line and back.token_usage.total_tokens == 15
