/**
 * The book of answers a handler asks from in rounds: recorded answers come back in order, the
 * first unanswered question opens a round that every question of the same turn joins, and an
 * answer of the wrong shape is asked again.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  AnswerBook,
  inputRequired,
  isInputRequiredReturn,
  QuestionsAsked,
  questionsOf,
  untilQuestions,
} from '../../lib/tools/client-questions.js';

const elicitAnswer = { action: 'accept', content: { name: 'Ada' } };
const form = { message: 'Name?', requestedSchema: { type: 'object', properties: {} } };

describe('AnswerBook', () => {
  it('answers recorded questions at once, by default key in call order', async () => {
    const book = new AnswerBook({ 'elicit-1': elicitAnswer, 'roots-2': { roots: [] } });
    assert.deepEqual(await book.ask('elicitation/create', form), elicitAnswer);
    assert.deepEqual(await book.ask('roots/list', {}), { roots: [] });
  });

  it('collects every question asked in the same turn into one round', async () => {
    const book = new AnswerBook({ named: elicitAnswer });
    const handler = async () => {
      const named = await book.ask('elicitation/create', form, { key: 'named' });
      await Promise.all([
        book.ask('sampling/createMessage', { messages: [], maxTokens: 5 }),
        book.ask('roots/list', {}),
      ]);
      return named;
    };
    const outcome = await untilQuestions(handler(), book);
    assert.ok(outcome instanceof QuestionsAsked);
    assert.deepEqual(
      outcome.questions.map(({ key, method }) => [key, method]),
      [
        ['sample-2', 'sampling/createMessage'],
        ['roots-3', 'roots/list'],
      ],
    );
  });

  it('asks again a question whose answer has the wrong shape', async () => {
    const book = new AnswerBook({ 'sample-1': { action: 'accept' } });
    const outcome = await untilQuestions(
      book.ask('sampling/createMessage', { messages: [], maxTokens: 5 }),
      book,
    );
    assert.ok(outcome instanceof QuestionsAsked);
    assert.equal(outcome.questions[0]!.key, 'sample-1');
  });

  it('lets a handler that asks nothing unanswered finish with its value', async () => {
    const book = new AnswerBook({});
    assert.equal(await untilQuestions(Promise.resolve('done'), book), 'done');
  });

  it('refuses two questions of one round under one key', async () => {
    const book = new AnswerBook({});
    void book.ask('roots/list', {}, { key: 'same' });
    assert.throws(() => book.ask('roots/list', {}, { key: 'same' }), /share the key "same"/);
  });
});

describe('inputRequired (the explicit form)', () => {
  it('survives a structured clone (a thread boundary) and names its questions', () => {
    const value = structuredClone(
      inputRequired({ ok: { method: 'elicitation/create', params: form } }, { step: 1 }),
    );
    assert.ok(isInputRequiredReturn(value));
    assert.deepEqual(value.state, { step: 1 });
    assert.deepEqual(questionsOf(value), [{ key: 'ok', method: 'elicitation/create', params: form }]);
    assert.equal(isInputRequiredReturn({ requests: {} }), false);
  });

  it('refuses a method a handler may not ask, naming the ones it may', () => {
    const value = inputRequired({ bad: { method: 'tools/call' as never } });
    assert.throws(
      () => questionsOf(value),
      /use one of elicitation\/create, sampling\/createMessage, roots\/list/,
    );
  });
});
