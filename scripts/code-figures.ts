/**
 * Figures of the source tree for a reader judging its shape: per folder of src, the largest file
 * and the longest function; every function over a length (default 80 lines). Functions are
 * declarations, methods, accessors, constructors and arrow or function expressions of their own,
 * measured from their first line to their last.
 *
 *   npx tsx scripts/code-figures.ts [--over N] [--json]
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';

export interface FunctionFigure {
  file: string;
  name: string;
  line: number;
  lines: number;
}

export interface FileFigures {
  file: string;
  lines: number;
  functions: FunctionFigure[];
}

function nameOf(node: ts.Node, sf: ts.SourceFile): string {
  const named = node as { name?: ts.Node };
  if (named.name) return named.name.getText(sf);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText(sf);
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText(sf);
  if (parent && ts.isPropertyDeclaration(parent)) return parent.name.getText(sf);
  return '(anonymous)';
}

const isFunction = (n: ts.Node): boolean =>
  ts.isFunctionDeclaration(n) ||
  ts.isMethodDeclaration(n) ||
  ts.isConstructorDeclaration(n) ||
  ts.isGetAccessorDeclaration(n) ||
  ts.isSetAccessorDeclaration(n) ||
  ts.isArrowFunction(n) ||
  ts.isFunctionExpression(n);

/** The figures of one TypeScript or JavaScript file. */
export function figuresOf(file: string, text: string): FileFigures {
  const kind = file.endsWith('.js') ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const functions: FunctionFigure[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunction(node)) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      functions.push({ file, name: nameOf(node, sf), line: start + 1, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { file, lines: text.split('\n').length, functions };
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(p));
    else if (/\.(ts|js)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out.sort();
}

/** Every file under `root`/src, its path relative to `root`. */
export function treeFigures(root: string): FileFigures[] {
  return sourceFiles(path.join(root, 'src')).map((f) =>
    figuresOf(path.relative(root, f), fs.readFileSync(f, 'utf8')),
  );
}

function main(argv: string[]): void {
  const overAt = argv.indexOf('--over');
  const over = overAt >= 0 ? Number(argv[overAt + 1]) : 80;
  if (!Number.isInteger(over) || over < 1)
    throw new Error(`--over must be a positive integer, not ${argv[overAt + 1]}`);
  const files = treeFigures(path.resolve(__dirname, '..'));
  const folders = new Map<string, FileFigures[]>();
  for (const f of files) {
    const folder = path.dirname(f.file);
    folders.set(folder, [...(folders.get(folder) ?? []), f]);
  }
  const rows = [...folders.entries()].map(([folder, fs_]) => {
    const largest = fs_.reduce((a, b) => (b.lines > a.lines ? b : a));
    const fns = fs_.flatMap((f) => f.functions);
    const longest = fns.reduce<FunctionFigure | undefined>(
      (a, b) => (!a || b.lines > a.lines ? b : a),
      undefined,
    );
    return { folder, largest, longest };
  });
  const longOnes = files
    .flatMap((f) => f.functions)
    .filter((f) => f.lines > over)
    .sort((a, b) => b.lines - a.lines);
  if (argv.includes('--json')) {
    process.stdout.write(
      JSON.stringify(
        {
          folders: rows.map((r) => ({
            folder: r.folder,
            largestFile: { file: r.largest.file, lines: r.largest.lines },
            longestFunction: r.longest ?? null,
          })),
          over,
          functionsOver: longOnes,
        },
        null,
        2,
      ) + '\n',
    );
    return;
  }
  process.stdout.write(
    '| folder | largest file | lines | longest function | lines |\n|---|---|---|---|---|\n',
  );
  for (const r of rows)
    process.stdout.write(
      `| ${r.folder} | ${path.basename(r.largest.file)} | ${r.largest.lines} | ${r.longest ? `${r.longest.name} (${path.basename(r.longest.file)})` : '-'} | ${r.longest?.lines ?? '-'} |\n`,
    );
  process.stdout.write(`\nfunctions over ${over} lines: ${longOnes.length}\n`);
  for (const f of longOnes) process.stdout.write(`  ${f.lines}  ${f.name}  ${f.file}:${f.line}\n`);
}

if (require.main === module) main(process.argv.slice(2));
