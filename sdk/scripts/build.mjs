// Builds dist/esm (ES modules) and dist/cjs (CommonJS), each with .d.ts files beside the code so
// `import` and `require` consumers both get types that match the module format. One tsc pass
// type-checks and writes the declarations; each file is then transpiled twice with TypeScript's
// transpileModule (no bundler: the output mirrors src/ file for file).
// Usage: node scripts/build.mjs [--out <dir>]   (default: dist)
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ts = require('typescript');
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');
const outFlag = process.argv.indexOf('--out');
const out = path.resolve(root, outFlag > 0 ? process.argv[outFlag + 1] : 'dist');

rmSync(out, { recursive: true, force: true });
execFileSync(
  process.execPath,
  [
    require.resolve('typescript/bin/tsc'),
    '-p',
    path.join(root, 'tsconfig.build.json'),
    '--emitDeclarationOnly',
    '--outDir',
    path.join(out, 'esm'),
  ],
  { stdio: 'inherit', cwd: root },
);

const sources = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') && !e.name.endsWith('.test.ts') ? [full] : [];
  });

const formats = { esm: ts.ModuleKind.ES2022, cjs: ts.ModuleKind.CommonJS };
for (const file of sources(src)) {
  const rel = path.relative(src, file).replace(/\.ts$/, '.js');
  const text = readFileSync(file, 'utf8');
  for (const [flavour, module] of Object.entries(formats)) {
    const { outputText } = ts.transpileModule(text, {
      fileName: file,
      compilerOptions: { target: ts.ScriptTarget.ES2022, module, esModuleInterop: true, verbatimModuleSyntax: false },
    });
    mkdirSync(path.dirname(path.join(out, flavour, rel)), { recursive: true });
    writeFileSync(path.join(out, flavour, rel), outputText);
  }
}

// Declarations are the same text for both formats; the nearest package.json tells TypeScript which format they describe.
const copyDts = (from, to) => {
  for (const e of readdirSync(from, { withFileTypes: true })) {
    if (e.isDirectory()) copyDts(path.join(from, e.name), path.join(to, e.name));
    else if (e.name.endsWith('.d.ts')) {
      mkdirSync(to, { recursive: true });
      copyFileSync(path.join(from, e.name), path.join(to, e.name));
    }
  }
};
copyDts(path.join(out, 'esm'), path.join(out, 'cjs'));
// tsc never copies .d.ts sources; the generated schema is one.
for (const flavour of Object.keys(formats)) {
  mkdirSync(path.join(out, flavour, 'generated'), { recursive: true });
  copyFileSync(path.join(src, 'generated/schema.d.ts'), path.join(out, flavour, 'generated/schema.d.ts'));
}
writeFileSync(path.join(out, 'esm', 'package.json'), '{ "type": "module" }\n');
writeFileSync(path.join(out, 'cjs', 'package.json'), '{ "type": "commonjs" }\n');
process.stderr.write(`built ${path.relative(process.cwd(), out) || '.'} (esm + cjs)\n`);
