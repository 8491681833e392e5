// Rolls BCDice commands (the DiceBot base system) or user-defined dice tables with dice we
// choose, for the differential tests (tests/unit/dice/test_bcdice_differential.py and
// test_user_table_differential.py).
// stdin: a JSON array of {command, draws} or {table, draws}; die i shows draws[i] % sides + 1,
// so both sides of the test derive the same face from the same draw whatever sides BCDice asks for.
// stdout: a JSON array of {result} (null when BCDice gives none) or {error}.
"use strict";
const { DynamicLoader, Version, UserDefinedDiceTable } = require("bcdice");
const { BCDice } = require("bcdice/lib/internal");

function tableWith(text, draws) {
  const randomizer = BCDice.Randomizer.$new();
  let used = 0;
  randomizer.$random = (sides) => {
    if (used >= draws.length) throw new Error("out of draws");
    return (draws[used++] % sides) + 1;
  };
  const result = new UserDefinedDiceTable(text).roll(randomizer);
  if (!result) return { result: null };
  return { result: { text: result.text, rands: result.detailedRands } };
}

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
  const answers = cases.map(({ command, table, draws }) => {
    try {
      if (table !== undefined) return tableWith(table, draws);
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
