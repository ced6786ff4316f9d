// The demo's sample data, written on first start so every page shows something: a tree of
// categories, a few hundred books, authors with their books, tasks for two users, projects,
// contracts and salaries. Deterministic (a seeded random sequence), written in one transaction
// straight to the tables, and only into an empty demo: once any demo table holds a row, nothing
// is written again.
import { randomBytes } from 'node:crypto';
import type { FieldDefinition, ModelDefinition } from '@fw/core';
import type { FwStore } from '@fw/store';

/** The store's knex, or a transaction of it. */
type Trx = FwStore['knex'];
import { Author, Book, Category, Contract, Project, Salary, Task, demoModels } from './models.js';
import { CATEGORY_TREE, CLASSIC_TITLES, classicGenre, CONTRACT_PARTIES, FIRST_NAMES, LANGUAGES, LAST_NAMES, PROJECTS, TASK_SUBJECTS, inventedTitle } from './seed-data.js';

/** How much {@link seedDemo} writes. */
export interface SeedOptions {
  /** How many books. @default 300 */
  books?: number;
  /** How many authors. @default 60 */
  authors?: number;
}

/** What {@link seedDemo} did: `seeded: false` when the demo already held data. */
export interface SeedResult {
  seeded: boolean;
  counts: Record<string, number>;
}

/** Whether `FW_DEMO_SEED` asks for sample data: anything but `0`, `false`, `no` or `off` (unset: yes). */
export function seedWanted(value: string | undefined): boolean {
  return !/^(0|false|no|off)$/i.test((value ?? '').trim());
}

/** A small deterministic random sequence (mulberry32), so every first start shows the same demo. */
function randomSequence(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A valid ISBN-13 (978 prefix, check digit computed) from a number. */
export function isbn13(n: number): string {
  const body = `978${String(100_000_000 + ((n * 2_654_435_761) % 900_000_000)).padStart(9, '0')}`;
  const sum = [...body].reduce((s, d, i) => s + Number(d) * (i % 2 === 0 ? 1 : 3), 0);
  return `${body}${(10 - (sum % 10)) % 10}`;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** The columns of a form row (field names) of a demo model: JSON lists, Date date-times. */
function columnsOf(model: ModelDefinition, row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(row)) {
    const field: FieldDefinition | undefined = model.fields[name];
    if (!field?.stored || value === undefined) continue;
    out[field.column] = Array.isArray(value) ? JSON.stringify(value) : field.edit.type === 'DATETIME' && typeof value === 'string' ? new Date(value) : value;
  }
  return out;
}

/** Inserts rows and gives back their ids, in order (one insert per row: MySQL has no RETURNING). */
async function insertAll(trx: Trx, dialect: string, model: ModelDefinition, rows: Array<Record<string, unknown>>): Promise<number[]> {
  const ids: number[] = [];
  const pk = model.fields[model.primaryKey]!.column;
  for (const row of rows) {
    const columns = columnsOf(model, row);
    const result: unknown[] = dialect === 'mysql' ? await trx(model.table).insert(columns) : await trx(model.table).insert(columns, [pk]);
    const first = result[0];
    ids.push(Number(typeof first === 'object' && first !== null ? (first as Record<string, unknown>)[pk] : first));
  }
  return ids;
}

/** The second user the demo's tasks belong to, made on first seed with a random password (an administrator may set one). */
async function demoUser(store: FwStore): Promise<number> {
  const found = await store.users.findByAccount('alice');
  if (found) return found.id;
  const row = await store.users.create({ account: 'alice', name: 'Alice Martin', password: randomBytes(18).toString('base64url'), isAdmin: false, mustChangePassword: true });
  return row.id;
}

/**
 * Writes the demo's sample data when every demo table is empty; otherwise writes nothing (a
 * second start, a database someone filled). Tasks go to `ownerId` (the administrator) and to a
 * second user `alice`.
 */
export async function seedDemo(store: FwStore, ownerId: number, options: SeedOptions = {}): Promise<SeedResult> {
  for (const model of demoModels) {
    const [row] = await store.knex(model.table).select(store.knex.raw('1 as one')).limit(1);
    if (row) return { seeded: false, counts: {} };
  }
  const random = randomSequence(20_26);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const date = (from: number, to: number) => `${from + Math.floor(random() * (to - from + 1))}-${pad(1 + Math.floor(random() * 12))}-${pad(1 + Math.floor(random() * 28))}`;
  const bookCount = options.books ?? 300;
  const authorCount = options.authors ?? 60;
  const alice = await demoUser(store);
  const dialect = store.dialect;
  const counts: Record<string, number> = {};
  await store.knex.transaction(async (trx) => {
    // Categories: the tree, parents first.
    const categoryIds: number[] = [];
    for (const top of CATEGORY_TREE) {
      const [parent] = await insertAll(trx, dialect, Category, [{ name: top.name, parentId: null }]);
      categoryIds.push(
        parent!,
        ...(await insertAll(
          trx,
          dialect,
          Category,
          top.children.map((name) => ({ name, parentId: parent })),
        )),
      );
    }
    counts.Category = categoryIds.length;

    const books = Array.from({ length: bookCount }, (_, i) => ({
      title: i < CLASSIC_TITLES.length ? CLASSIC_TITLES[i]! : inventedTitle(i),
      isbn: isbn13(i + 1),
      genre: i < CLASSIC_TITLES.length ? classicGenre(CLASSIC_TITLES[i]!) : pick(['novel', 'novel', 'novel', 'essay', 'poetry']),
      price: Math.floor(4 + random() * 32) + pick([0.99, 0.99, 0.5, 0.95]),
      published: date(1950, 2024),
      inPrint: random() > 0.2,
    }));
    const bookIds = await insertAll(trx, dialect, Book, books);
    counts.Book = bookIds.length;

    const authors = Array.from({ length: authorCount }, (_, i) => {
      const name = `${FIRST_NAMES[i % FIRST_NAMES.length]!} ${LAST_NAMES[(i * 7) % LAST_NAMES.length]!}`;
      return {
        name,
        bio: `${name} writes about ${pick(['cities', 'the sea', 'memory', 'science', 'families', 'journeys'])} and teaches ${pick(['literature', 'history', 'physics', 'translation'])}.`,
        born: date(1930, 1995),
        categoryId: pick(categoryIds),
        favouriteBookId: pick(bookIds),
        languages: [...new Set([pick(LANGUAGES), pick(LANGUAGES)])],
        prizes: random() > 0.7 ? [pick(['hugo', 'nebula', 'booker'])] : [],
        lastSeen: new Date(Date.UTC(2025, Math.floor(random() * 12), 1 + Math.floor(random() * 28), 8 + Math.floor(random() * 10), Math.floor(random() * 60))).toISOString(),
      };
    });
    const authorIds = await insertAll(trx, dialect, Author, authors);
    counts.Author = authorIds.length;
    // Each book has an author; some authors wrote several.
    const join = Author.fields.books!.edit.collection!;
    const links = bookIds.map((bookId, i) => ({ [join.ownKey]: authorIds[i % authorIds.length]!, [join.foreignKey]: bookId }));
    for (let i = 0; i < links.length; i += 200) await trx(join.joinTable).insert(links.slice(i, i + 200));

    const tasks = TASK_SUBJECTS.map((subject, i) => ({ subject, done: i % 3 === 0, ownerId: i % 2 === 0 ? ownerId : alice }));
    counts.Task = (await insertAll(trx, dialect, Task, tasks)).length;
    counts.Project = (
      await insertAll(
        trx,
        dialect,
        Project,
        PROJECTS.map((p) => ({ name: p.name, startDate: p.start, endDate: p.end, budget: p.budget })),
      )
    ).length;
    counts.Contract = (
      await insertAll(
        trx,
        dialect,
        Contract,
        CONTRACT_PARTIES.map((party) => ({ party, signedOn: date(2019, 2025) })),
      )
    ).length;
    const salaries = Array.from({ length: 12 }, (_, i) => ({
      employee: `${FIRST_NAMES[(i * 5) % FIRST_NAMES.length]!} ${LAST_NAMES[(i * 3) % LAST_NAMES.length]!}`,
      amount: 2800 + Math.round(random() * 40) * 100,
    }));
    counts.Salary = (await insertAll(trx, dialect, Salary, salaries)).length;
  });
  return { seeded: true, counts };
}
