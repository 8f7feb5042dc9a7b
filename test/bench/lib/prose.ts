// Deterministic, varied English-like prose for benchmark corpora. Real sentences would be better
// but no corpus ships with the repo; topic vocabularies plus sentence templates give text with
// realistic word lengths, punctuation and headings, and distinct documents share few sentences.

/** mulberry32: a small seeded PRNG, so a corpus is identical across runs. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(rand: () => number, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

const TOPICS: Record<string, { nouns: string[]; verbs: string[]; adjectives: string[] }> = {
  finance: {
    nouns: [
      'invoice',
      'budget',
      'ledger',
      'forecast',
      'audit',
      'quarter',
      'revenue',
      'expense report',
      'cash flow',
      'procurement policy',
      'vendor contract',
      'reimbursement',
    ],
    verbs: ['approves', 'reconciles', 'reviews', 'postpones', 'allocates', 'flags', 'summarises', 'rejects'],
    adjectives: ['quarterly', 'overdue', 'consolidated', 'provisional', 'annual', 'audited', 'unpaid'],
  },
  engineering: {
    nouns: [
      'deployment',
      'database migration',
      'load balancer',
      'incident',
      'release branch',
      'build pipeline',
      'cache layer',
      'service mesh',
      'rollback plan',
      'latency budget',
      'index rebuild',
    ],
    verbs: ['deploys', 'monitors', 'refactors', 'benchmarks', 'patches', 'documents', 'rolls back', 'replicates'],
    adjectives: ['distributed', 'idempotent', 'stateless', 'degraded', 'redundant', 'asynchronous', 'encrypted'],
  },
  medicine: {
    nouns: [
      'clinical trial',
      'patient cohort',
      'dosage',
      'biopsy',
      'vaccine',
      'symptom',
      'protocol',
      'placebo group',
      'blood panel',
      'follow-up visit',
    ],
    verbs: ['prescribes', 'monitors', 'diagnoses', 'records', 'evaluates', 'screens', 'discharges'],
    adjectives: ['randomised', 'chronic', 'acute', 'double-blind', 'preliminary', 'adverse', 'paediatric'],
  },
  law: {
    nouns: [
      'tenancy agreement',
      'clause',
      'liability',
      'court filing',
      'settlement',
      'indemnity',
      'witness statement',
      'data processing agreement',
      'appeal',
    ],
    verbs: ['amends', 'terminates', 'enforces', 'disputes', 'negotiates', 'ratifies', 'waives'],
    adjectives: ['binding', 'confidential', 'statutory', 'material', 'void', 'pending', 'mutual'],
  },
  travel: {
    nouns: [
      'itinerary',
      'ferry crossing',
      'mountain hut',
      'rail pass',
      'coastal path',
      'museum',
      'harbour town',
      'night train',
      'guesthouse',
      'glacier hike',
    ],
    verbs: ['visits', 'books', 'recommends', 'crosses', 'explores', 'photographs', 'cancels'],
    adjectives: ['scenic', 'crowded', 'remote', 'seasonal', 'affordable', 'historic', 'windswept'],
  },
  cooking: {
    nouns: [
      'sourdough starter',
      'braise',
      'stock',
      'marinade',
      'pastry',
      'fermentation',
      'spice blend',
      'risotto',
      'cast iron pan',
      'recipe card',
    ],
    verbs: ['simmers', 'kneads', 'roasts', 'seasons', 'reduces', 'ferments', 'plates'],
    adjectives: ['smoky', 'tangy', 'caramelised', 'crisp', 'slow-cooked', 'seasonal', 'fragrant'],
  },
};

export const TOPIC_NAMES = Object.keys(TOPICS);

const ACTORS = [
  'The team',
  'Our analyst',
  'The committee',
  'Each reviewer',
  'The coordinator',
  'A contractor',
  'The owner',
  'Management',
  'The on-call engineer',
  'The editor',
];
const CONNECTIVES = [
  'However,',
  'In practice,',
  'As a result,',
  'Meanwhile,',
  'For that reason,',
  'In most cases,',
  'Afterwards,',
  'By contrast,',
];
const NAMES = [
  'Amara Okafor',
  'Lena Fischer',
  'Ravi Menon',
  'Sofia Rossi',
  'Tomás Ibarra',
  'Yuki Tanaka',
  'Noah Becker',
  'Ingrid Holm',
  'Kwame Mensah',
  'Chloé Martin',
];

export class Prose {
  readonly rand: () => number;
  constructor(seed: number) {
    this.rand = rng(seed);
  }

  topic(): string {
    return pick(this.rand, TOPIC_NAMES);
  }

  word(topic: string, kind: 'nouns' | 'verbs' | 'adjectives'): string {
    return pick(this.rand, TOPICS[topic]![kind]);
  }

  name(): string {
    return pick(this.rand, NAMES);
  }

  /** One sentence from a handful of templates, with a number or date now and then. */
  sentence(topic: string): string {
    const r = this.rand;
    const n = (k: 'nouns' | 'verbs' | 'adjectives') => this.word(topic, k);
    const num = () => String(Math.floor(r() * 9000) + 100);
    const templates = [
      () => `${pick(r, ACTORS)} ${n('verbs')} the ${n('adjectives')} ${n('nouns')} before the ${n('nouns')} is finalised.`,
      () => `${pick(r, CONNECTIVES)} the ${n('nouns')} ${n('verbs')} ${num()} items, which affects the ${n('adjectives')} ${n('nouns')}.`,
      () => `${this.name()} noted that every ${n('nouns')} needs a ${n('adjectives')} ${n('nouns')} by ${1 + Math.floor(r() * 28)} March.`,
      () => `Why does the ${n('nouns')} depend on the ${n('nouns')}? Because ${pick(r, ACTORS).toLowerCase()} ${n('verbs')} it twice.`,
      () => `A ${n('adjectives')} ${n('nouns')} costs about ${num()} euros, while the ${n('nouns')} stays ${n('adjectives')}.`,
      () =>
        `${pick(r, ACTORS)} ${n('verbs')} the ${n('nouns')} and ${n('verbs')} the ${n('nouns')}; nobody ${n('verbs')} the ${n('adjectives')} ${n('nouns')}.`,
    ];
    return pick(r, templates)();
  }

  paragraph(topic: string, sentences = 3 + Math.floor(this.rand() * 4)): string {
    return Array.from({ length: sentences }, () => this.sentence(topic)).join(' ');
  }

  title(topic: string): string {
    const t = `${this.word(topic, 'adjectives')} ${this.word(topic, 'nouns')} ${pick(this.rand, ['notes', 'review', 'summary', 'plan', 'report', 'checklist', 'update'])}`;
    return t[0]!.toUpperCase() + t.slice(1);
  }

  /** Paragraphs totalling roughly `chars` characters. */
  body(topic: string, chars: number): string[] {
    const out: string[] = [];
    let len = 0;
    while (len < chars) {
      const p = this.paragraph(topic);
      out.push(p);
      len += p.length + 2;
    }
    return out;
  }

  /** Long document with headings every few paragraphs, about `chars` characters. */
  longDocument(chars: number): string {
    const parts: string[] = [];
    let len = 0;
    let section = 1;
    while (len < chars) {
      const topic = this.topic();
      const heading = `## ${section++}. ${this.title(topic)}`;
      const paras = this.body(topic, 1500 + Math.floor(this.rand() * 3000));
      parts.push(heading, ...paras);
      len += heading.length + paras.reduce((s, p) => s + p.length + 2, 0);
    }
    return parts.join('\n\n') + '\n';
  }
}
