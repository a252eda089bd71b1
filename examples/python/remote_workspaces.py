"""Another machine's workspaces, through the local server's socket only.

The local server forwards any call that carries the metadata `signaltty-machine: NAME` to
NAME's server (a remote from `signaltty remote add`) over its own ssh link; the call and its
answer are the same as on that machine. ListMachines says which machines there are and how
each link is.

Usage: remote_workspaces.py SOCKET MACHINE   (exit 0 when MACHINE's workspaces were listed)
"""

import sys

import grpc
from grpc_status import rpc_status
from google.rpc import error_details_pb2

from signaltty.v1 import server_pb2, server_pb2_grpc
from signaltty.v1 import workspace_pb2, workspace_pb2_grpc

TIMEOUT = 60  # seconds; the first call to a machine logs in over ssh


def reason(err):
    """The stable ErrorInfo reason of a failed call (e.g. UNKNOWN_MACHINE)."""
    status = rpc_status.from_call(err)
    for detail in status.details if status else []:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return info.reason
    return ""


def main(socket, machine):
    channel = grpc.insecure_channel(
        f"unix://{socket}", options=[("grpc.default_authority", "localhost")]
    )
    server = server_pb2_grpc.ServerServiceStub(channel)
    listed = server.ListMachines(server_pb2.ListMachinesRequest(connect=True), timeout=TIMEOUT)
    for m in listed.machines:
        state = server_pb2.MachineState.Name(m.state)
        print(f"machine {m.name} {m.host or '-'} {state} {m.server_version} {m.detail}")

    on_machine = [("signaltty-machine", machine)]
    workspaces = workspace_pb2_grpc.WorkspaceServiceStub(channel)
    there = workspaces.ListWorkspaces(
        workspace_pb2.ListWorkspacesRequest(), metadata=on_machine, timeout=TIMEOUT
    )
    for w in there.workspaces:
        print(f"{machine}: workspace {w.id} {w.name!r} on {w.cwd}")

    try:
        workspaces.ListWorkspaces(
            workspace_pb2.ListWorkspacesRequest(),
            metadata=[("signaltty-machine", "no-such-machine")],
            timeout=TIMEOUT,
        )
        raise SystemExit("a machine that is not configured was answered")
    except grpc.RpcError as err:
        print(f"no-such-machine: {err.code().name} {reason(err)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
