"""The local Citus cluster refuses clearly when it cannot run (the running cluster is tested by
`make test-citus`, tests/citus/)."""

from __future__ import annotations

import pytest

from records.citus_build import CitusBuild
from records.cluster import Cluster, ClusterError


def test_up_without_a_build_says_make_citus(tmp_path):
    cluster = Cluster(root=tmp_path / "cluster", citus=CitusBuild(tmp_path / "no-citus"))
    with pytest.raises(ClusterError, match="make citus"):
        cluster.up(workers=2)
    assert not (tmp_path / "cluster").exists()  # nothing half-made


def test_a_cluster_that_was_never_started_has_no_nodes_and_no_url(tmp_path):
    cluster = Cluster(root=tmp_path / "cluster", citus=CitusBuild(tmp_path / "citus"))
    assert cluster.nodes() == [] and cluster.status() == []
    with pytest.raises(ClusterError, match="chartside cluster up"):
        cluster.url("chartside")
    with pytest.raises(ClusterError, match="chartside cluster up"):
        cluster.prepare_database("chartside")
