/**
 * Reproducible message text for the benchmarks: a seeded PRNG and sentences drawn from a word
 * list with a Zipf-like distribution, so a search for a frequent word matches most messages and
 * one for a rare word only a few, as in real chat. No stop words (PostgreSQL's English
 * configuration drops them), no Markdown syntax, so `<p>text</p>` is the exact rendering.
 */

const VOCABULARY = `
project deploy server release branch review budget meeting design client schedule testing
database network feature customer report planning migration invoice backup deadline product
market sprint dashboard ticket pipeline cluster kernel router laptop printer garden kitchen
coffee lunch weekend holiday weather morning evening concert museum library station airport
bicycle mountain river forest island village harbor bridge castle tower window curtain
carpet blanket pillow mirror lantern candle basket bottle button pencil marker notebook
folder envelope stamp ladder hammer wrench shovel bucket engine rocket planet comet galaxy
orbit signal sensor camera screen keyboard monitor speaker cable socket battery charger
antenna satellite compass anchor sail harbour violin guitar trumpet drum piano melody rhythm
chorus lyric poem novel chapter author editor critic painter sculptor canvas gallery
theater ballet circus festival parade carnival market bakery butcher grocer tailor cobbler
farmer fisher miner sailor pilot doctor nurse dentist lawyer banker teacher student scholar
wizard dragon knight castle throne crown jewel treasure pirate captain admiral general
soldier archer falcon eagle sparrow robin parrot penguin dolphin whale salmon trout
lobster oyster turtle lizard tiger lion panther leopard zebra giraffe camel donkey pony
rabbit squirrel beaver badger otter walrus moose bison buffalo mammoth raptor cobra
python viper spider beetle hornet wasp moth butterfly meadow prairie desert canyon valley
glacier volcano crater lagoon marsh swamp tundra savanna jungle orchard vineyard pasture
apple banana cherry grape lemon mango melon olive peach pear plum berry walnut almond
pepper ginger garlic onion carrot potato tomato lettuce spinach cabbage pumpkin noodle
bread butter cheese yogurt honey sugar cinnamon vanilla cocoa biscuit muffin pancake
waffle omelette sandwich burrito taco curry risotto lasagna dumpling sushi ramen pretzel
purple orange yellow crimson scarlet violet indigo silver golden bronze copper marble
granite velvet cotton linen leather silk wool nylon plastic rubber glass ceramic timber
quick happy brave clever gentle humble jolly lucky mighty noble proud quiet rapid silent
sturdy tidy vivid witty zealous ancient modern rustic urban frozen sunny stormy windy
cloudy foggy rainy snowy dusty muddy shiny fuzzy crispy crunchy smooth rough sharp blunt
build write compute measure publish refactor optimize compile validate configure install
upgrade restart monitor analyze debug profile benchmark document translate summarize
approve reject merge rebase deploy rollback archive restore encrypt decrypt compress
upload download stream render export import migrate schedule cancel postpone confirm
`
  .split(/\s+/)
  .filter((w, i, all) => w !== "" && all.indexOf(w) === i);

/** Rare words, each in about one message in RARE_ONE_IN; searching one finds a handful. */
export const RARE_WORDS = ["quasar", "zeppelin", "xylophone", "kumquat", "obelisk"];
const RARE_ONE_IN = 4_000;

/** A seeded PRNG (mulberry32): the same seed gives the same text on every run. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Cumulative Zipf weights (s = 1) over the vocabulary, for sampling by binary search.
const CUMULATIVE = (() => {
  const out = new Float64Array(VOCABULARY.length);
  let sum = 0;
  VOCABULARY.forEach((_, i) => {
    sum += 1 / (i + 1);
    out[i] = sum;
  });
  return out.map((v) => v / sum);
})();

function zipfWord(random: () => number): string {
  const x = random();
  let lo = 0;
  let hi = CUMULATIVE.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (CUMULATIVE[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return VOCABULARY[lo];
}

/** The word of a given frequency rank (0 is the most frequent). */
export function wordOfRank(rank: number): string {
  return VOCABULARY[Math.min(rank, VOCABULARY.length - 1)];
}

/** The number of distinct ordinary words. */
export const VOCABULARY_SIZE = VOCABULARY.length;

/** A message body of one or two sentences, 6 to 24 words. */
export function sentence(random: () => number): string {
  const count = 6 + Math.floor(random() * 19);
  const words: string[] = [];
  for (let i = 0; i < count; i++) words.push(zipfWord(random));
  if (random() * RARE_ONE_IN < 1) words.splice(Math.floor(random() * count), 0, RARE_WORDS[Math.floor(random() * RARE_WORDS.length)]);
  const text = words.join(" ");
  return `${text[0].toUpperCase()}${text.slice(1)}.`;
}

/** A short topic name of two words. */
export function topicName(random: () => number): string {
  return `${zipfWord(random)} ${zipfWord(random)}`;
}
