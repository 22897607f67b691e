"""ovsdbapp peer of the ovnkit benchmarks (run with Debian's /usr/bin/python3).

Usage:
  ovsdbapp_bench.py seq REMOTE SWITCH COUNT
      one transaction per port (lsp_add + lsp_set_addresses +
      lsp_set_port_security), each committed before the next
  ovsdbapp_bench.py batch REMOTE SWITCH COUNT BATCH
      the same commands, BATCH ports per transaction
  ovsdbapp_bench.py sync REMOTE EXPECTED_PORTS
      time from opening an IDL connection (schema fetch included) to the
      first complete sync of the whole OVN_Northbound database

Prints one JSON object on stdout: {"seconds": ..., "cpuSeconds": ...,
"ports": ...}. The clock starts after the API's connection is up (seq,
batch) or before the schema is fetched (sync); cpuSeconds is the user +
system CPU time of the whole process (every thread, getrusage RUSAGE_SELF)
over the same section. Port i's name and addresses match bench/lib/nb-data.ts.
"""

import json
import resource
import sys
import time


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def port_address(i):
    b = [(i >> 16) & 255, (i >> 8) & 255, i & 255]
    mac = "0a:00:%s:01" % ":".join("%02x" % x for x in b)
    return "%s 10.%d.%d.%d" % (mac, b[0], b[1], b[2])


def api_for(remote):
    from ovsdbapp.backend.ovs_idl import connection
    from ovsdbapp.schema.ovn_northbound import impl_idl

    idl = connection.OvsdbIdl.from_server(remote, "OVN_Northbound")
    conn = connection.Connection(idl=idl, timeout=600)
    return impl_idl.OvnNbApiIdlImpl(conn), conn


def add_port(api, txn, switch, i):
    name = "lsp-%d" % i
    addr = [port_address(i)]
    txn.add(api.lsp_add(switch, name))
    txn.add(api.lsp_set_addresses(name, addr))
    txn.add(api.lsp_set_port_security(name, addr))


def write(remote, switch, count, batch):
    api, conn = api_for(remote)
    c0 = cpu_seconds()
    t0 = time.perf_counter()
    for start in range(0, count, batch):
        with api.transaction(check_error=True) as txn:
            for i in range(start, min(count, start + batch)):
                add_port(api, txn, switch, i)
    seconds = time.perf_counter() - t0
    cpu = cpu_seconds() - c0
    ports = len(api.tables["Logical_Switch_Port"].rows)
    conn.stop()
    return {"seconds": seconds, "cpuSeconds": cpu, "ports": ports}


def sync(remote, expected):
    import ovs.db.idl
    import ovs.poller
    from ovsdbapp.backend.ovs_idl import idlutils

    c0 = cpu_seconds()
    t0 = time.perf_counter()
    helper = idlutils.get_schema_helper(remote, "OVN_Northbound")
    helper.register_all()
    idl = ovs.db.idl.Idl(remote, helper)
    seqno = idl.change_seqno
    while True:
        idl.run()
        if idl.change_seqno != seqno and len(idl.tables["Logical_Switch_Port"].rows) >= expected:
            break
        poller = ovs.poller.Poller()
        idl.wait(poller)
        poller.block()
    seconds = time.perf_counter() - t0
    cpu = cpu_seconds() - c0
    ports = len(idl.tables["Logical_Switch_Port"].rows)
    idl.close()
    return {"seconds": seconds, "cpuSeconds": cpu, "ports": ports}


def main(argv):
    mode = argv[1]
    if mode == "seq":
        out = write(argv[2], argv[3], int(argv[4]), 1)
    elif mode == "batch":
        out = write(argv[2], argv[3], int(argv[4]), int(argv[5]))
    elif mode == "sync":
        out = sync(argv[2], int(argv[3]))
    else:
        raise SystemExit("unknown mode %r" % mode)
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv)
