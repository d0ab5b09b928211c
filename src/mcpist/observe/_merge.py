"""The metrics of several worker processes as one scrape, each sample labelled with its process.

Workers share one port, so a scrape reaches whichever worker the kernel picks; that worker adds the
other workers' own figures (fetched over their sockets) to its own. Every sample gets a `node` label
(the worker's cluster node id), so series of different workers never collide and sums across them
are right.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from prometheus_client.exposition import generate_latest
from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.registry import Collector, CollectorRegistry
from prometheus_client.samples import Sample

__all__ = ["merge_scrapes"]

NODE_LABEL = "node"


class _Families(Collector):
    def __init__(self, families: Iterable[Metric]) -> None:
        self._families = list(families)

    def collect(self) -> Iterator[Metric]:
        return iter(self._families)


def merge_scrapes(scrapes: Iterable[tuple[str, str]]) -> bytes:
    """One text-format exposition of every (node id, text) scrape, samples labelled `node`.

    A scrape that does not parse is left out (a worker answering something else must not break the
    whole exposition); families of one name are merged.
    """
    merged: dict[str, Metric] = {}
    for node, text in scrapes:
        try:
            families = list(text_string_to_metric_families(text))
        except ValueError:
            continue
        for family in families:
            target = merged.get(family.name)
            if target is None:
                target = merged[family.name] = Metric(family.name, family.documentation, family.type, family.unit)
            for sample in family.samples:
                labels = {**sample.labels, NODE_LABEL: node}
                target.samples.append(Sample(sample.name, labels, sample.value, sample.timestamp, sample.exemplar))
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Families(merged.values()))
    return generate_latest(registry)
