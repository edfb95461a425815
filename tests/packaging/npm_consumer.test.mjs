// The npm package of the engine as a JavaScript project uses it: `cargo xtask test` (suite
// "npm package", crates/xtask/src/packaging.rs) packs it, installs the tarball into a fresh
// project and copies this file there, so that the import below resolves as a user's would.
// EXEMPLAR_BIN is the native `exemplar`, whose answers are the reference; ROOT the checkout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const name = process.env.PACKAGE_NAME;
const pkg = await import(name);
const cli = (...args) => JSON.parse(execFileSync(process.env.EXEMPLAR_BIN, args, { encoding: 'utf8' }));

test('the tools are the definitions `exemplar tools` prints', () => {
  assert.deepEqual(pkg.tools, cli('tools'));
  assert.ok(pkg.tools.some((t) => t.name === 'fit_random_effects'));
});

test('call(fit_random_effects) equals `exemplar call` exactly', () => {
  assert.deepEqual(pkg.call('fit_random_effects', {}), cli('call', 'fit_random_effects', '{}'));
  const args = { exclude: ['s04'] };
  assert.deepEqual(pkg.call('refit_excluding', args), cli('call', 'refit_excluding', JSON.stringify(args)));
});

test('a tool error throws a ToolError with the engine code', () => {
  assert.throws(
    () => pkg.call('refit_excluding', { exclude: ['nope'] }),
    (e) => e instanceof pkg.ToolError && e.code === 'unknown_record' && /nope/.test(e.message),
  );
  assert.throws(() => pkg.call('no_such_tool', {}), (e) => e.code === 'unknown_tool');
  assert.match(pkg.callJson('refit_excluding', '{"exclude":["nope"]}'), /"unknown_record"/);
});

test("a session's run answers an agent what the page answers", () => {
  const session = new pkg.Session();
  const report = JSON.parse(session.run('fit_random_effects', '{}', '2026-12-05T00:00:00Z'));
  assert.deepEqual(report.response.structuredContent, cli('call', 'fit_random_effects', '{}'));
  assert.equal(JSON.parse(session.verify()).ok, true);
});

test('metadata, dataset and scorer are there', () => {
  assert.equal(pkg.metadata().record_count, 19);
  assert.match(pkg.datasetCsv(), /^id,/);
  assert.equal(typeof pkg.score('{}'), 'object');
  assert.ok(pkg.instructions().length > 100);
});

test('the declarations declare every export', () => {
  const dts = readFileSync(join('node_modules', name, 'index.d.ts'), 'utf8');
  for (const key of Object.keys(pkg)) {
    assert.match(dts, new RegExp(`export declare (const|function|class) ${key}\\b`), key);
  }
});

test("the README's npm route runs as written", () => {
  const readme = readFileSync(join(process.env.ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('<!-- install:begin'), readme.indexOf('<!-- install:end -->'));
  assert.match(section, new RegExp(`^npm install ${name}$`, 'm'));
  const js = section.match(/^```js\n([\s\S]*?)^```/m)[1];
  writeFileSync('readme-example.mjs', js);
  const out = execFileSync(process.execPath, ['readme-example.mjs'], { encoding: 'utf8' });
  const fit = cli('call', 'fit_random_effects', '{}');
  assert.equal(out.trim(), `${pkg.tools.length} ${fit.estimate} ${fit.tau2}`);
});
