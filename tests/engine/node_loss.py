"""A node of a Ray cluster lost in the middle of a lead's children, as its own process (it
makes a cluster of its own: `ray.cluster_utils.Cluster`, a head that runs nothing and two
nodes). Both children start on the first node (the only one at first); once their calls are
under way a second node joins, then the first is removed without warning, and Ray runs the
tasks again on the second. Prints what the test checks, as JSON.

    python -m tests.engine.node_loss STORE FOLDER"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import threadlab as tl

from .crew import define_crew, ledger_lines

NODE: dict[str, Any] = {"num_cpus": 1, "object_store_memory": 80 * 2**20}


async def main(store: str, where: Path) -> dict[str, Any]:
    from ray.cluster_utils import Cluster

    head = {
        "num_cpus": 0,
        "object_store_memory": 80 * 2**20,
        "include_dashboard": False,
        # A node that stops answering is given up after about 3 s (Ray's default is 15 s or
        # more): how an operator who wants lost work to move on soon sets up a cluster.
        "_system_config": {"health_check_period_ms": 1000, "health_check_failure_threshold": 3},
    }
    cluster = Cluster(initialize_head=True, head_node_args=head)
    doomed = cluster.add_node(**NODE)
    try:
        registry = tl.Registry()
        define_crew(registry, where, pause=120.0)  # calls that last until the node is gone
        engine = tl.RayEngine(cluster.address, max_concurrency=4)
        rt = tl.Runtime(registry, store, engine=engine, poll_interval=0.1)
        lead = await rt.create_thread("fan")
        sending = asyncio.ensure_future(lead.send("2"))
        for _ in range(2400):  # both calls under way (at most two minutes)
            if len(list(where.glob("thr_*.pid"))) == 2:
                break
            await asyncio.sleep(0.05)
        # The second node, up before the first is lost, as in a cluster that has room for
        # what a lost node ran (a node that joins only afterwards adds its start-up, 8-13 s
        # here, to the children's wait).
        spare_at = time.time()
        cluster.add_node(**NODE)
        joined = time.time() - spare_at
        removed = time.time()
        cluster.remove_node(doomed, allow_graceful=False)
        run = await asyncio.wait_for(sending, 240)
        children = lead.children
        outcome = {
            "lead": run.status,
            "joined_after": joined,
            "children": {
                c.id: {
                    "status": c.status,
                    "ended_after": max(e.at for e in c.events if isinstance(e, tl.RunFinishedEvent))
                    - removed,
                    "calls": [x.id for m in c.all_messages() for x in m.tool_calls],
                    "results": [m.content for m in c.all_messages() if m.role == "tool"],
                }
                for c in children
            },
            "reports": [m.subagent_id for m in lead.messages if m.role == "user" and m.subagent_id],
            "ledger": [[thread, call] for thread, call, _ in ledger_lines(where)],
        }
        rt.close()
        engine.close()
        return outcome
    finally:
        import ray

        ray.shutdown()  # the driver leaves first: the cluster will not remove its node
        cluster.shutdown()  # type: ignore[no-untyped-call]


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1], Path(sys.argv[2])))))
