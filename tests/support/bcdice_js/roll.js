// Rolls BCDice commands (the DiceBot base system) with dice we choose, for the differential test.
// stdin: a JSON array of {command, draws}; die i shows draws[i] % sides + 1, so both sides of the
// test derive the same face from the same draw whatever sides BCDice asks for.
// stdout: a JSON array of {result} (null when BCDice says "not a command") or {error}.
"use strict";
const { DynamicLoader, Version } = require("bcdice");

function rollWith(GameSystem, command, draws) {
  const game = new GameSystem(command);
  let used = 0;
  game.randomizer.$random = (sides) => {
    if (used >= draws.length) throw new Error("out of draws");
    return (draws[used++] % sides) + 1;
  };
  const result = game.eval();
  if (!result) return { result: null };
  const { text, secret, success, failure, critical, fumble, detailedRands } = result;
  return { result: { text, secret, success, failure, critical, fumble, rands: detailedRands } };
}

async function main() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const cases = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const GameSystem = await new DynamicLoader().dynamicLoad("DiceBot");
  const answers = cases.map(({ command, draws }) => {
    try {
      return rollWith(GameSystem, command, draws);
    } catch (error) {
      return { error: String(error && error.message ? error.message : error) };
    }
  });
  process.stdout.write(JSON.stringify({ version: Version, answers }));
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack ? error.stack : error) + "\n");
  process.exit(1);
});
