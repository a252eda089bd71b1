// The page's API: typed clients generated from proto/ (protobuf-es), over gRPC-web
// (connect-web) to `signaltty web`, which forwards every call to the server's own services.
import { createClient, type Transport } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { create } from "@bufbuild/protobuf";
import { ServerService } from "./gen/signaltty/v1/server_pb.js";
import { WorkspaceService } from "./gen/signaltty/v1/workspace_pb.js";
import {
  PaneService,
  AttachRequestSchema,
  AttachRequest_StartSchema,
  type AttachResponse,
} from "./gen/signaltty/v1/pane_pb.js";
import { EventService } from "./gen/signaltty/v1/event_pb.js";
import { DecisionService } from "./gen/signaltty/v1/agent_pb.js";
import { NotificationService } from "./gen/signaltty/v1/notification_pb.js";
import { GitService } from "./gen/signaltty/v1/git_pb.js";

// Same origin: the cookie rides along (HttpOnly, SameSite=Strict).
export const transport: Transport = createGrpcWebTransport({
  baseUrl: window.location.origin,
  useBinaryFormat: true,
});

export const api = {
  server: createClient(ServerService, transport),
  workspaces: createClient(WorkspaceService, transport),
  panes: createClient(PaneService, transport),
  events: createClient(EventService, transport),
  decisions: createClient(DecisionService, transport),
  notifications: createClient(NotificationService, transport),
  git: createClient(GitService, transport),
};

// Attach is a bidirectional stream and fetch cannot stream a request body: the page sends
// only the Start message (`signaltty web` holds the server's side open) and reads the answers
// as a server stream; typing goes through WriteInput.
const attachAsServerStream = {
  ...PaneService.method.attach,
  methodKind: "server_streaming" as const,
};

export async function* attach(
  paneId: string,
  cols: number,
  rows: number,
  readOnly: boolean,
  signal: AbortSignal,
): AsyncGenerator<AttachResponse> {
  const start = create(AttachRequestSchema, {
    kind: {
      case: "start",
      value: create(AttachRequest_StartSchema, { paneId, cols, rows, readOnly, markSeen: false }),
    },
  });
  async function* one() {
    yield start;
  }
  const res = await transport.stream(
    attachAsServerStream as never,
    signal,
    undefined,
    undefined,
    one() as never,
    undefined,
  );
  for await (const msg of res.message as AsyncIterable<AttachResponse>) {
    yield msg;
  }
}
