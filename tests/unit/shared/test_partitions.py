"""Summarizer partitions (shared/messaging/partitions.py): the Python mirror of NATS's partition
mapping, the durables and filters of a partition, and the settings that choose one. That the
mirror agrees with nats-server is tested against the server (tests/integration/bus)."""

from __future__ import annotations

from collections import Counter

import pytest

from services.summarizer.bootstrap import BOOTSTRAP
from services.summarizer.messaging import fold_spec, requests_spec
from shared.bootstrap import SettingsProblem
from shared.messaging import Partition, partition_of, subject_template
from shared.messaging.partitions import count_of, is_summarizer_durable, transform_destinations


def test_partition_of_is_fnv1a_of_the_two_repository_tokens_modulo_the_count():
    # by hand: FNV-1a 32 of b"ab" is 0x4D2505CA = 1294271946; 1294271946 % 3 == 0, % 7 == 2
    assert partition_of("a/b", 3) == 1294271946 % 3 == 0
    assert partition_of("a/b", 7) == 1294271946 % 7 == 2
    # the tokens as the subject carries them: a dot in a name is %2E before hashing, so
    # "a.b/x" is not "ab/x" (and not "a/bx", whose tokens concatenate alike only by chance)
    assert partition_of("a.b/x", 1000) != partition_of("ab/x", 1000)
    assert partition_of("a/bx", 1000) == partition_of("ab/x", 1000)  # NATS hashes "abx" for both
    assert all(partition_of(f"o/r{i}", 1) == 0 for i in range(50))


def test_partition_of_is_deterministic_and_spreads_repositories():
    repos = [f"org{i % 7}/project-{i}" for i in range(3000)]
    first = [partition_of(r, 3) for r in repos]
    assert first == [partition_of(r, 3) for r in repos]  # same answer every time
    spread = Counter(first)
    assert set(spread) == {0, 1, 2}
    # 1000 expected per partition; a fair hash stays well within ±15 %
    assert all(850 <= n <= 1150 for n in spread.values()), spread
    eight = Counter(partition_of(r, 8) for r in repos)
    assert set(eight) == set(range(8)) and all(300 <= n <= 450 for n in eight.values()), eight


def test_partition_of_refuses_a_count_below_one():
    with pytest.raises(ValueError, match="at least 1"):
        partition_of("a/b", 0)


def test_unpartitioned_durables_and_filters_are_todays():
    fold, requests = fold_spec(), requests_spec()
    assert (fold.durable, fold.stream, fold.filter_subject) == (
        "summarizer-fold",
        "RD_ENRICHED",
        "rd.enriched.>",
    )
    assert (requests.durable, requests.stream, requests.filter_subject) == (
        "summarizer-requests",
        "RD_REPORTS",
        "rd.summary.requested.>",
    )
    assert transform_destinations(1) == {}
    assert Partition().owns("any/repo") and not Partition().partitioned


def test_a_partition_reads_its_token_through_durables_named_for_index_and_count():
    p = Partition(2, 3)
    assert (fold_spec(p).durable, fold_spec(p).filter_subject) == (
        "summarizer-fold-2-of-3",
        "rd.enriched.2.>",
    )
    assert (requests_spec(p).durable, requests_spec(p).filter_subject) == (
        "summarizer-requests-2-of-3",
        "rd.summary.requested.2.*.*",
    )
    assert requests_spec(p).batch_size == 16  # the rest of the declaration is unchanged
    owned = [r for r in (f"o/r{i}" for i in range(60)) if p.owns(r)]
    assert owned and all(partition_of(r, 3) == 2 for r in owned)
    assert all(is_summarizer_durable(fold_spec(q).durable) for q in (p, Partition()))
    assert not is_summarizer_durable("summarizer-foldx") and not is_summarizer_durable("renderer")


def test_the_transforms_hash_the_same_tokens_in_both_streams_and_name_their_count():
    transforms = transform_destinations(5)
    enriched_src, enriched_dest = transforms["RD_ENRICHED"]
    requests_src, requests_dest = transforms["RD_REPORTS"]
    assert enriched_src == "rd.enriched.*.*.*.*"
    # wildcards 3 and 4 of the facts' subject, 1 and 2 of the requests': owner and name in both
    assert enriched_dest.startswith("rd.enriched.{{partition(5,3,4)}}.")
    assert requests_src == "rd.summary.requested.*.*"
    assert requests_dest.startswith("rd.summary.requested.{{partition(5,1,2)}}.")

    class Transform:
        dest = enriched_dest

    assert count_of(Transform()) == 5 and count_of(None) == 1

    class Foreign:
        dest = "rd.other.$1"

    with pytest.raises(ValueError, match="did not make"):
        count_of(Foreign())


@pytest.mark.parametrize(("index", "count"), [(3, 3), (-1, 3), (0, 0), (0, 65)])
def test_a_partition_outside_its_count_is_refused(index, count):
    with pytest.raises(ValueError):
        Partition(index, count)


def test_span_names_keep_the_partition_token_and_template_the_repository():
    assert (
        subject_template("rd.enriched.2.pull_request.opened.acme.widgets")
        == "rd.enriched.2.pull_request.opened.{owner}.{repo}"
    )
    assert (
        subject_template("rd.summary.requested.0.acme.widgets")
        == "rd.summary.requested.0.{owner}.{repo}"
    )
    # unpartitioned subjects as before
    assert (
        subject_template("rd.enriched.pull_request.opened.acme.widgets")
        == "rd.enriched.pull_request.opened.{owner}.{repo}"
    )
    assert subject_template("rd.summary.ready.acme.widgets") == "rd.summary.ready.{owner}.{repo}"


def test_a_replica_index_outside_the_count_stops_the_summarizer_with_what_to_set(monkeypatch):
    monkeypatch.setenv("REPODIGEST_SUMMARIZER_PARTITIONS", "3")
    monkeypatch.setenv("REPODIGEST_SUMMARIZER_PARTITION_INDEX", "3")
    with pytest.raises(SettingsProblem) as raised:
        BOOTSTRAP.settings()
    (problem,) = raised.value.problems
    assert "REPODIGEST_SUMMARIZER_PARTITION_INDEX=3 is outside the partitions 0..2" in problem
    assert "StatefulSet's replicas must equal REPODIGEST_SUMMARIZER_PARTITIONS" in problem
    monkeypatch.setenv("REPODIGEST_SUMMARIZER_PARTITION_INDEX", "2")
    assert BOOTSTRAP.settings().partitions_served() == [Partition(2, 3)]
    monkeypatch.delenv("REPODIGEST_SUMMARIZER_PARTITION_INDEX")  # unset: every partition here
    assert BOOTSTRAP.settings().partitions_served() == [Partition(i, 3) for i in range(3)]
    # a label the pod lacks comes through the downward API as an empty value
    monkeypatch.setenv("REPODIGEST_SUMMARIZER_PARTITION_INDEX", "")
    with pytest.raises(SettingsProblem, match="apps.kubernetes.io/pod-index"):
        BOOTSTRAP.settings()
    monkeypatch.setenv("REPODIGEST_SUMMARIZER_PARTITIONS", "0")
    with pytest.raises(SettingsProblem, match="summarizer_partitions"):
        BOOTSTRAP.settings()


def test_python_m_services_summarizer_exits_1_before_connecting(monkeypatch, capsys):
    # no server listens at this URL: the settings problem is said before any connection
    monkeypatch.setenv("REPODIGEST_NATS_URL", "nats://127.0.0.1:1")
    monkeypatch.setenv("REPODIGEST_SUMMARIZER_PARTITIONS", "2")
    monkeypatch.setenv("REPODIGEST_SUMMARIZER_PARTITION_INDEX", "2")
    assert BOOTSTRAP.main() == 1
    err = capsys.readouterr().err
    assert err.startswith("summarizer: REPODIGEST_SUMMARIZER_PARTITION_INDEX=2 is outside the")
    assert "connect" not in err.lower()
