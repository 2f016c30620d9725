SELECT domain('https://www.example.com:8080/path?a=1#f'), domainWithoutWWW('https://www.example.com/x'), topLevelDomain('http://a.b.co.uk/'), protocol('svn+ssh://h.com/r');
SELECT port('http://example.com:8080/x'), port('http://example.com/x', toUInt16(443)), path('http://a.b/c/d?x=1'), pathFull('http://a.b/c/d?x=1#y');
SELECT queryString('http://a.b/?x=1&y=2#z'), fragment('http://a.b/?x=1#z'), queryStringAndFragment('http://a.b/#z'), netloc('http://user:pw@a.b:90/p');
SELECT cutWWW('http://www.a.b/'), cutQueryString('http://a.b/p?x=1#f'), cutFragment('http://a.b/p?x=1#f'), cutQueryStringAndFragment('http://a.b/p?x=1#f');
SELECT extractURLParameter('http://a.b/?x=1&y=2', 'y'), extractURLParameters('http://a.b/?x=1&y=2&z'), extractURLParameterNames('http://a.b/?x=1&y=2#w=3');
SELECT decodeURLComponent('a%20b%2Fc+d'), decodeURLFormComponent('a%20b+c'), encodeURLComponent('a b/c?d=é'), encodeURLFormComponent('a b&c');
SELECT number, domain(concat('http://h', toString(number), '.com/p')), port(concat('http://h.com:', toString(number * 1000))) FROM numbers(3) ORDER BY number;
