// The word lists the demo's sample data is made from (see seed.ts): a category tree, book titles,
// author names, task subjects. Plausible, invented or long in the public domain.

/** The category tree: top-level categories and their children. */
export const CATEGORY_TREE: ReadonlyArray<{ name: string; children: readonly string[] }> = [
  { name: 'Fiction', children: ['Science fiction', 'Fantasy', 'Mystery', 'Historical fiction', 'Literary fiction'] },
  { name: 'Non-fiction', children: ['History', 'Science', 'Biography', 'Travel', 'Philosophy'] },
  { name: 'Poetry', children: ['Classic poetry', 'Modern poetry'] },
  { name: 'Children', children: ['Picture books', 'Young adult'] },
];

/** Well-known titles, long in print. */
export const CLASSIC_TITLES: readonly string[] = [
  'Pride and Prejudice',
  'Moby-Dick',
  'Middlemarch',
  'Great Expectations',
  'Jane Eyre',
  'Wuthering Heights',
  'The Odyssey',
  'War and Peace',
  'Anna Karenina',
  'Crime and Punishment',
  'The Brothers Karamazov',
  'Madame Bovary',
  'Les Misérables',
  'Don Quixote',
  'Frankenstein',
  'Dracula',
  'The Time Machine',
  'The War of the Worlds',
  'Twenty Thousand Leagues Under the Sea',
  'Around the World in Eighty Days',
  'Treasure Island',
  'Kidnapped',
  'The Count of Monte Cristo',
  'The Three Musketeers',
  'Little Women',
  'Emma',
  'Persuasion',
  'Sense and Sensibility',
  'Bleak House',
  'A Tale of Two Cities',
  'Oliver Twist',
  'The Picture of Dorian Gray',
  'Heart of Darkness',
  'Lord Jim',
  'The Scarlet Letter',
  'Walden',
  'Leaves of Grass',
  'The Call of the Wild',
  'White Fang',
  'The Jungle Book',
  'Kim',
  'Ulysses',
  'Dubliners',
  'Mrs Dalloway',
  'To the Lighthouse',
  'The Age of Innocence',
  'The Awakening',
  'Siddhartha',
  'The Trial',
  'The Metamorphosis',
  'Candide',
  'Gulliver\u2019s Travels',
  'Robinson Crusoe',
  'The Origin of Species',
  'The Wealth of Nations',
  'Meditations',
  'The Art of War',
  'The Prince',
];

const CLASSIC_ESSAYS = new Set(['Walden', 'The Origin of Species', 'The Wealth of Nations', 'Meditations', 'The Art of War', 'The Prince']);
const CLASSIC_POETRY = new Set(['The Odyssey', 'Leaves of Grass']);

/** The genre of a classic title: essay, poetry, else novel. */
export function classicGenre(title: string): 'novel' | 'essay' | 'poetry' {
  return CLASSIC_ESSAYS.has(title) ? 'essay' : CLASSIC_POETRY.has(title) ? 'poetry' : 'novel';
}

const OPENINGS: readonly string[] = [
  'The',
  'A',
  'The Last',
  'The Silent',
  'The Hidden',
  'The Long',
  'A Short History of the',
  'The Secret',
  'Beyond the',
  'Under the',
  'The Lost',
  'Notes on the',
  'The Glass',
  'The Winter',
];
const NOUNS: readonly string[] = [
  'Harbour',
  'Lighthouse',
  'Orchard',
  'Cartographer',
  'Archive',
  'Garden',
  'River',
  'Observatory',
  'Station',
  'Library',
  'Island',
  'Comet',
  'Clockmaker',
  'Bridge',
  'Forest',
  'Letters',
  'Mountain',
  'Tide',
  'Atlas',
  'Expedition',
  'Kingdom',
  'Machine',
  'Harvest',
  'Lantern',
];
const PLACES: readonly string[] = ['Prague', 'Lisbon', 'Kyoto', 'Samarkand', 'Venice', 'Alexandria', 'Reykjavik', 'Odessa', 'Valparaíso', 'Zanzibar', 'Tangier', 'Edinburgh'];

/** A made-up but plausible book title from a number. */
export function inventedTitle(n: number): string {
  const opening = OPENINGS[n % OPENINGS.length]!;
  const noun = NOUNS[Math.floor(n / OPENINGS.length) % NOUNS.length]!;
  if (n % 5 === 0) return `${opening} ${noun} of ${PLACES[n % PLACES.length]!}`;
  if (n % 7 === 0) return `A Winter in ${PLACES[Math.floor(n / 7) % PLACES.length]!}`;
  return `${opening} ${noun}`;
}

export const FIRST_NAMES: readonly string[] = [
  'Ada',
  'Alan',
  'Amara',
  'Anton',
  'Beatriz',
  'Clara',
  'Daniel',
  'Elena',
  'Emil',
  'Farah',
  'Grace',
  'Hana',
  'Hugo',
  'Ingrid',
  'Ivan',
  'Jonas',
  'Keiko',
  'Lars',
  'Leila',
  'Lucia',
  'Marek',
  'Mei',
  'Nadia',
  'Nikolai',
  'Olga',
  'Omar',
  'Pablo',
  'Priya',
  'Rosa',
  'Samuel',
  'Sofia',
  'Tomas',
  'Ursula',
  'Viktor',
  'Wen',
  'Yusuf',
  'Zofia',
];
export const LAST_NAMES: readonly string[] = [
  'Albrecht',
  'Bianchi',
  'Carvalho',
  'Dubois',
  'Eriksen',
  'Fischer',
  'García',
  'Haddad',
  'Ishikawa',
  'Jansen',
  'Kowalski',
  'Lindqvist',
  'Moreau',
  'Nakamura',
  'Okafor',
  'Petrov',
  'Quinn',
  'Rossi',
  'Santos',
  'Takahashi',
  'Urquhart',
  'Varga',
  'Weber',
  'Xu',
  'Yilmaz',
  'Zhang',
];

export const LANGUAGES: readonly string[] = ['English', 'French', 'German', 'Spanish', 'Portuguese', 'Italian', 'Japanese', 'Russian', 'Polish', 'Chinese'];

export const TASK_SUBJECTS: readonly string[] = [
  'Order the spring catalogue',
  'Call the printer about the proofs',
  'Review the translation of chapter 3',
  'Update the price list',
  'Reply to the reader letters',
  'Plan the autumn reading night',
  'Check the ISBNs of the new titles',
  'Send the contracts for signature',
  'Photograph the new arrivals',
  'Archive last year\u2019s invoices',
  'Prepare the book fair stand',
  'Write the newsletter',
  'Count the stock in the back room',
  'Renew the shop insurance',
  'Book the author visit',
  'Fix the shelf labels',
];

export const PROJECTS: ReadonlyArray<{ name: string; start: string; end: string | null; budget: number | null }> = [
  { name: 'Autumn book fair', start: '2025-09-01', end: '2025-10-20', budget: 12000 },
  { name: 'New website', start: '2025-03-10', end: '2025-07-31', budget: 18500 },
  { name: 'Translation series', start: '2025-01-15', end: '2026-06-30', budget: 42000 },
  { name: 'Reading club', start: '2024-11-01', end: null, budget: null },
  { name: 'Warehouse move', start: '2025-05-02', end: '2025-05-30', budget: 7600 },
  { name: 'Children\u2019s corner', start: '2025-02-01', end: '2025-04-15', budget: 3200 },
];

export const CONTRACT_PARTIES: readonly string[] = [
  'Northwind Printing Ltd',
  'Blue Harbour Distribution',
  'Atlas Paper Mills',
  'Lumen Translations',
  'Kestrel Logistics',
  'Open Shelf Bookshops',
  'Meridian Audio Books',
  'Quillstone Design Studio',
];
