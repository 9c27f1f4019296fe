"""tap.py: the TAP lines of the tests in this directory: ok() prints one, skip() one skipped,
plan() the plan and gives the exit status."""
n_test = 0
failed = False


def ok(cond, what, detail=''):
    global n_test, failed
    n_test += 1
    print(('ok' if cond else 'not ok') + f' {n_test} - {what}')
    if not cond:
        failed = True
        for line in str(detail).splitlines()[:20]:
            print('# ' + line)


def skip(why):
    global n_test
    n_test += 1
    print(f'ok {n_test} # SKIP {why}')


def plan():
    print(f'1..{n_test}')
    return 1 if failed else 0
