// A researcher's words for the tools' arguments: what a form's label, hint and choices say
// to a person. The schemas (Rust, www/generated/tools.json) say what an argument is to an
// agent, in as few bytes as the tool list's budget allows ("Scale of natural."); this says
// it to a person, in metafor's names with a one-line meaning. Presentation only: a word
// missing here falls back to the schema's own description, and nothing here decides what
// an argument means to the engine (the engine reads and validates every value).

/** The τ² estimators (metafor's `method`): each name with a one-line meaning. */
const METHODS = {
  REML: 'restricted maximum likelihood (metafor\u2019s default)',
  ML: 'maximum likelihood',
  DL: 'DerSimonian\u2013Laird, the classic method-of-moments estimator',
  HE: 'Hedges\u2019 estimator (unweighted moments)',
  SJ: 'Sidik\u2013Jonkman',
  PM: 'Paule\u2013Mandel (generalized Q)',
  EE: 'equal-effects model: one true effect, \u03c4\u00b2 = 0',
  FE: 'fixed-effects model (computed as EE)',
};

/** The scales a result can be shown on (`transform`). */
const TRANSFORMS = {
  auto: 'the measure\u2019s natural scale (ratios for log ratios, r for Fisher\u2019s z, \u2026)',
  none: 'the scale the analysis is done on (e.g. log odds ratios)',
  exp: 'exponentiated: log ratios as ratios',
  ilogit: 'inverse logit: logits as proportions',
  ztor: 'Fisher\u2019s z as correlations',
  iarcsin: 'inverse arcsine: proportions',
  'ipft.hm': 'inverse Freeman\u2013Tukey (harmonic mean of the sizes): proportions',
  iirft: 'inverse Freeman\u2013Tukey: rates',
  isqrt: 'squared: rates from square roots',
  iahw: 'inverse Hakstian\u2013Whalen: Cronbach\u2019s alpha',
  iabt: 'inverse Bonett: Cronbach\u2019s alpha',
};

const TESTS = {
  z: 'normal (Wald) tests and intervals',
  knha: 'Knapp\u2013Hartung: t tests, wider intervals with few studies',
  t: 't tests',
};

/**
 * Per argument name: `label` (what the field is called), `hint` (one sentence; `typed`, where
 * the agent tools' forms take the argument typed rather than picked), `choices`
 * (an enum value's meaning), `picks` (how a person gives it: `columns` ticks columns,
 * `column` chooses one, `ids` ticks studies, `subset` a column and its values), and `when`
 * (whether the words fit this schema: names are shared by arguments of different types).
 */
export const WORDS = {
  method: { label: 'Model and \u03c4\u00b2 estimator', hint: 'How the between-study variance \u03c4\u00b2 is estimated.', choices: METHODS },
  level: { label: 'Confidence level', hint: 'Of every interval, e.g. 0.95 for 95% intervals.', when: (s) => s.type === 'number' && s.maximum === 1 },
  test: { label: 'Tests and intervals', hint: 'How the estimate is tested and its interval built.', choices: TESTS, when: (s) => Array.isArray(s.enum) },
  transform: { label: 'Scale of the results', hint: 'The scale the estimates are printed and drawn on.', choices: TRANSFORMS },
  exclude: { label: 'Leave out studies', hint: 'Tick the studies to leave out of this analysis.', typed: 'The studies to leave out of this analysis: their ids.', picks: 'ids' },
  subset: {
    label: 'Only some studies',
    hint: 'Choose a column and tick the values whose studies are kept (metafor\u2019s subset).',
    typed: 'The studies kept (metafor\u2019s subset): {"column": "tester", "in": ["blind"]}, or {"column": \u2026, "equals": \u2026}.',
    picks: 'subset',
  },
  slab: { label: 'Study labels', hint: 'The column naming each study on plots and in tables (default: author and year, else the id).', picks: 'column' },
  weights: { label: 'Weights', hint: 'A column of weights (default: inverse-variance weights).', picks: 'column' },
  by: { label: 'Subgroups', hint: 'A column whose values group the studies; each group gets its own summary.', picks: 'column' },
  study: { label: 'Study column', hint: 'The column naming each estimate\u2019s study (default: the one chosen above as the study).', picks: 'column' },
  cluster: { label: 'Cluster column', hint: 'The column naming each estimate\u2019s cluster (often the study).', picks: 'column' },
  mod: { label: 'Moderator', hint: 'The numeric column on the horizontal axis.', picks: 'column' },
  order_by: { label: 'Order by', hint: 'The column the studies are ordered by (default: as in the data).', picks: 'column' },
  descending: { label: 'Largest first', hint: 'Order from the largest value down.' },
  mods: { label: 'Moderators', hint: 'Columns that may explain the differences between studies, as R writes them: ~ dose + factor(design).' },
  btt: { label: 'Coefficients tested', hint: 'Which coefficients the omnibus test (QM) takes together, by position (1 is the first) or name; by default every one but the intercept.' },
  ilab: { label: 'Columns beside the labels', hint: 'Tick the columns printed beside each study, e.g. its counts.', typed: 'The columns printed beside each study, e.g. its counts ai, ci.', picks: 'columns' },
  measure: { label: 'Measure', hint: 'The effect-size measure, by escalc\u2019s name (default: the records\u2019 own).', when: (s) => !Array.isArray(s.enum) },
  dataset: { label: 'Dataset', hint: 'The frozen benchmark dataset, named (the default unless data were loaded).' },
  order: { label: 'Row order', hint: 'Type estimate or precision, or choose a column (default: as in the data).', picks: 'column-or-text' },
  contours: { label: 'Contours', hint: 'Shade the regions where a study would be significant, at these levels, e.g. 0.9, 0.95, 0.99.' },
  variant: { label: 'Egger\u2019s line', hint: 'classic: regression of the estimate on its standard error; rma: the standard error as a moderator of a random-effects model.' },
  egger_line: { label: 'Draw Egger\u2019s line', hint: 'Draw Egger\u2019s regression line and its legend.' },
  estimator: { label: 'Estimator of the missing studies', hint: 'Duval and Tweedie\u2019s L0 (the default) or R0.' },
  side: { label: 'Side of the missing studies', hint: 'Where studies are presumed missing (default: estimated from the data).' },
  // metafor forest()'s options, as issue 45 names them (the forest plot takes them as they land).
  at: { label: 'Axis ticks', hint: 'The ticks, on the natural scale, e.g. 0.25, 0.5, 1, 2.', when: (s) => s.items?.type === 'number' },
  alim: { label: 'Axis limits', hint: 'The axis runs from the first to the second; intervals beyond it end in an arrow.' },
  xlim: { label: 'Plot extent', hint: 'The horizontal extent of the whole figure, labels included.' },
  refline: { label: 'Reference line', hint: 'Where the vertical reference line is drawn (default: no effect, 0 or 1).' },
  header: { label: 'Column titles', hint: 'The titles over the study labels and over the estimates.' },
  mlab: { label: 'Summary label', hint: 'The label of the summary row.' },
  showweights: { label: 'Show weights', hint: 'Print each study\u2019s weight in the model.' },
  addpred: { label: 'Prediction interval', hint: 'Draw the prediction interval of a new study\u2019s true effect.' },
  shade: { label: 'Shade rows', hint: 'Shade the rows (zebra) for reading across.' },
  width: { label: 'Figure width', hint: 'Of the figure, e.g. for a page or a journal column.' },
};

/** The words for argument `name` with schema `schema`, or null. */
export function wordsFor(name, schema) {
  const words = WORDS[name];
  if (!words || (words.when && !words.when(schema))) return null;
  return words;
}

/** A choice of an enum as a person reads it: metafor's name and, where known, its meaning. */
export function choiceText(words, value) {
  const meaning = words?.choices?.[value];
  return meaning ? `${value}: ${meaning}` : String(value);
}
