import { describe, test } from "node:test";
import assert from "node:assert/strict";
import type { DestinationStream } from "pino";
import { createLogger, logFormat, memoryLogger } from "../../src/log.js";
import { Failure } from "../../src/failure.js";

describe("logFormat: a person at a terminal reads lines, a machine reads JSON", () => {
  test("a terminal gets pretty lines, a pipe or a file JSON lines", () => {
    assert.equal(logFormat({ isTTY: true }, {}), "pretty");
    assert.equal(logFormat({ isTTY: false }, {}), "json");
    assert.equal(logFormat({}, {}), "json", "a stream that is no TTY has no isTTY at all");
  });

  test("LOG_FORMAT decides over the terminal, either way", () => {
    assert.equal(logFormat({ isTTY: true }, { LOG_FORMAT: "json" }), "json");
    assert.equal(logFormat({ isTTY: false }, { LOG_FORMAT: "pretty" }), "pretty");
    assert.equal(logFormat({ isTTY: false }, { LOG_FORMAT: " Pretty " }), "pretty");
    assert.equal(logFormat({ isTTY: true }, { LOG_FORMAT: "" }), "pretty", "empty is unset");
  });

  test("any other LOG_FORMAT is a configuration error naming the variable", () => {
    assert.throws(
      () => logFormat({ isTTY: true }, { LOG_FORMAT: "text" }),
      (err: unknown) => {
        assert.ok(err instanceof Failure);
        assert.equal(err.code, "E_CONFIG");
        assert.match(err.message, /LOG_FORMAT "text" must be json or pretty/);
        return true;
      },
    );
  });
});

function capture(): { destination: DestinationStream; lines: string[] } {
  const lines: string[] = [];
  return { destination: { write: (s: string) => void lines.push(s) }, lines };
}

describe("createLogger", () => {
  test("a given destination gets JSON lines unless pretty is asked for", () => {
    const { log, lines } = memoryLogger("info");
    log.info({ replicas: 1 }, "starting mesh-provisioner");
    assert.deepEqual(
      lines().map((l) => [l["level"], l["msg"], l["replicas"], l["name"]]),
      [["info", "starting mesh-provisioner", 1, "mesh-provisioner"]],
    );
  });

  test("pretty writes one readable line per entry, synchronously, with its fields and no secret", () => {
    const { destination, lines } = capture();
    const log = createLogger({ level: "info", destination, format: "pretty" });
    log.child({ component: "seat" }).warn({ instance: "i-1", password: "hunter2" }, "took the seat");
    assert.equal(lines.length, 1, "written before createLogger's caller goes on: nothing waits in a worker");
    const line = lines[0] ?? "";
    assert.match(line, /^\[\d{2}:\d{2}:\d{2}\.\d{3}\] WARN \(mesh-provisioner\/\d+\): took the seat /);
    assert.match(line, /"component":"seat"/);
    assert.match(line, /"instance":"i-1"/);
    assert.doesNotMatch(line, /hunter2/);
    assert.ok(!line.includes("\x1b["), "no colour codes into a destination that is not the terminal");
    assert.equal(line.split("\n").filter((l) => l !== "").length, 1);
    assert.throws(() => JSON.parse(line));
  });
});
